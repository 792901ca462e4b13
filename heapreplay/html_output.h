// heapreplay --html: the page's inputs gathered from one pass (and the base
// trace's, with --base), the saved bench results of --bench-json read, and
// the page written (analyzers/html: page_data.h, html_page.h).
// Allocates; reads --bench-json's file and writes only --html's.
#ifndef HEAPREC_HEAPREPLAY_HTML_OUTPUT_H_
#define HEAPREC_HEAPREPLAY_HTML_OUTPUT_H_

#include <nlohmann/json.hpp>
#include <string>

#include "analyzers/html/page_data.h"
#include "analyzers/range_profile.h"
#include "analyzers/report.h"

namespace heaprec::heapreplay {

// The "bench" object of a saved `heapreplay --bench --json` output (or the
// object itself); false + one line naming the file in *error.
bool ReadBenchJson(const std::string& path, nlohmann::json* bench, std::string* error);

// Writes the page to `path`; false + one line in *error. Its leaks views
// count the sites of leak_kinds (as --leaks lists them); range was
// Finish()ed with the same choice (ShownBlocks).
bool WriteHtml(const std::string& path, const analyzers::Report& report,
               analyzers::LeakKindSet leak_kinds, const analyzers::RangeProfile& range,
               const analyzers::html::PageBase* base, const nlohmann::json& bench,
               std::string* error);

}  // namespace heaprec::heapreplay

#endif  // HEAPREC_HEAPREPLAY_HTML_OUTPUT_H_
