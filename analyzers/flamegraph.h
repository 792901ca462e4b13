// FlameGraphSvg: a profile as one self-contained, interactive SVG flame graph
// in the manner of FlameGraph's flamegraph.pl: the root ("all") at the bottom,
// each frame above its caller, widths proportional to bytes or counts, frames
// of the same function path merged (the paths of folded_paths.h, so the
// picture always agrees with FoldedStacks).
//
// The file needs nothing else: opened from disk in a browser, its inline
// script zooms into a frame on click ("Reset Zoom" or Escape to go back) and
// highlights the frames matching a regular expression ("Search" or Ctrl+F),
// showing the share they cover. Hovering a frame shows its numbers; each
// frame's <title> holds, one per line: the name, the value (for bytes
// "1.5 MiB (12.34%), 1572864 bytes"; for counts "12 allocations (0.50%)"),
// and file:line when known, marked "(inlined)" for inlined frames (which are
// also drawn in a blue-green hue and named without the folded "_[i]" suffix).
// Frames narrower than 0.1 px are left out, with everything they call, so
// the file stays small however many stacks a profile has.
// A pure function; allocates. Called by heapreplay's output options.
#ifndef HEAPREC_ANALYZERS_FLAMEGRAPH_H_
#define HEAPREC_ANALYZERS_FLAMEGRAPH_H_

#include <string>
#include <vector>

#include "analyzers/site.h"
#include "analyzers/symbol_table.h"

namespace heaprec::analyzers {

struct FlameGraphOptions {
  std::string title = "Flame Graph";
  std::string subtitle;  // a second line under the title; none when empty
  std::string unit;      // what values count: "" = "bytes" or "allocations" by metric
  int width = 1200;      // pixels; at least 200 is used
};

std::string FlameGraphSvg(const std::vector<Site>& sites, Metric metric, const SymbolTable& symbols,
                          const FlameGraphOptions& options);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_FLAMEGRAPH_H_
