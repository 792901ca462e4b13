// Reads FlameGraphSvg's output back for tests: the frames it draws (title,
// label, geometry, color) and a check that the markup is well-formed (tags
// closed in order, one root, attributes quoted, every '&' a known entity).
// The check is the part of XML that a string builder can get wrong; the
// flamegraph_xml_test sh_test adds a real parser (xmllint) where there is one.
// Test-only; allocates.
#ifndef HEAPREC_ANALYZERS_SVG_TEST_READER_H_
#define HEAPREC_ANALYZERS_SVG_TEST_READER_H_

#include <string>
#include <vector>

namespace heaprec::analyzers {

// What the SVG says about one frame (one <g class="f">).
struct DrawnFrame {
  std::string title;  // unescaped
  std::string label;  // unescaped; "" when the frame has none
  double x = 0, y = 0, width = 0;
  std::string fill;
};

// Every frame, in document order.
std::vector<DrawnFrame> FramesOf(const std::string& svg);

// "" when well-formed as above; else the first problem found.
std::string XmlProblem(const std::string& xml);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_SVG_TEST_READER_H_
