// HtmlPage: the one self-contained file heapreplay --html writes: the page
// shell (report_shell.h: markup, CSS, d3, d3-flame-graph, uPlot and the
// app's scripts, all inline) with the data object (page_data.h) inside a
// <script type="application/json" id="heaprec-data">: as JSON text, or, past
// kCompressAbove bytes of it, as base64 of its gzip (the page inflates it with
// the browser's DecompressionStream; a large trace's data shrinks about 7x).
// Nothing is loaded from anywhere when the page opens.
// Pure functions; allocate.
#ifndef HEAPREC_ANALYZERS_HTML_HTML_PAGE_H_
#define HEAPREC_ANALYZERS_HTML_HTML_PAGE_H_

#include <nlohmann/json.hpp>
#include <string>

namespace heaprec::analyzers::html {

inline constexpr size_t kCompressAbove = size_t{1} << 20;

std::string HtmlPage(const nlohmann::json& data);

// What goes inside the data element: ScriptSafeJson, or base64 of its gzip
// when longer than `compress_above` bytes.
std::string DataElementText(const nlohmann::json& data, size_t compress_above = kCompressAbove);

// `data` as text that can sit inside a <script> element: every '<' is
// written as \u003c, so nothing in it can close the element; bytes that are
// not UTF-8 (a binary's symbol can hold any) become U+FFFD.
std::string ScriptSafeJson(const nlohmann::json& data);

}  // namespace heaprec::analyzers::html

#endif  // HEAPREC_ANALYZERS_HTML_HTML_PAGE_H_
