// FrameFill: the color of a flame graph frame, an SVG "rgb(r,g,b)".
// Derived from a hash of the frame's name, so a function keeps its color
// wherever it appears and from one run to the next. Warm colors (red to
// yellow, as flamegraph.pl's default palette) for functions; blue-green for
// inlined frames; grey for the bracketed pseudo-frames ("[no stack]",
// "[unknown stack]").
// A pure function; allocates. Used by FlameGraphSvg.
#ifndef HEAPREC_ANALYZERS_FLAME_COLORS_H_
#define HEAPREC_ANALYZERS_FLAME_COLORS_H_

#include <string>

#include "analyzers/folded_paths.h"

namespace heaprec::analyzers {

std::string FrameFill(const PathFrame& frame);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_FLAME_COLORS_H_
