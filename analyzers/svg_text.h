// Text for SVG (XML 1.0) documents: escaping and label truncation.
// XmlEscape makes any bytes safe inside element text and quoted attribute
// values: it escapes & < > " ', and replaces what XML 1.0 cannot hold at all
// (bytes that are not UTF-8, control characters other than tab and line
// breaks, U+FFFE/U+FFFF) with U+FFFD, so a symbol name never makes a file
// that browsers refuse. FitLabel shortens a label to a number of characters
// (code points) the way flamegraph.pl does: cut, then "..".
// Pure functions; they allocate. Used by FlameGraphSvg.
#ifndef HEAPREC_ANALYZERS_SVG_TEXT_H_
#define HEAPREC_ANALYZERS_SVG_TEXT_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace heaprec::analyzers {

std::string XmlEscape(std::string_view text);

// `text` if it has at most max_chars characters; else its first
// max_chars - 2 characters and ".."; "" when max_chars < 3.
std::string FitLabel(std::string_view text, size_t max_chars);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_SVG_TEXT_H_
