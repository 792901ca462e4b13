// The JavaScript inside every FlameGraphSvg file: click-to-zoom, Reset Zoom,
// search by regular expression (button or Ctrl+F) with the matched share, and
// the hovered frame's numbers in the details line. Written for this project
// (flamegraph.pl served only as a description of the behaviour).
//
// What it expects of the document:
//  - "use strict" and a constant LAYOUT = {charWidth, textPad, textDy} just
//    before it (so strict mode covers the whole script): the
//    label width of one character, the gap left of a label and a label's
//    baseline below its rect's top (how the C++ side fitted the labels);
//  - <g id="frames"> whose children are one <g class="f"> per frame, the root
//    first, each with a <title> whose first line is the frame's name, a
//    <rect> and, when the frame was wide enough, a <text> label;
//  - <text> elements with ids details, matched, search and unzoom;
//  - CSS classes "hide" (not drawn) and "parent" (a dimmed ancestor).
// No "]]>" inside, so it can sit in a CDATA section.
#ifndef HEAPREC_ANALYZERS_FLAMEGRAPH_SCRIPT_H_
#define HEAPREC_ANALYZERS_FLAMEGRAPH_SCRIPT_H_

namespace heaprec::analyzers {

extern const char kFlameGraphScript[];

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_FLAMEGRAPH_SCRIPT_H_
