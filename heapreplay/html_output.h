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

// The page's data (analyzers/html/DATA.md) of one pass. Its leaks views
// count the sites of leak_kinds (as --leaks lists them); range was
// Finish()ed with the same choice (ShownBlocks).
nlohmann::json HtmlPageData(const analyzers::Report& report, analyzers::LeakKindSet leak_kinds,
                            const analyzers::RangeProfile& range,
                            const analyzers::html::PageBase* base, const nlohmann::json& bench);

// Writes the page of `data` to `path`; false + one line in *error.
bool WriteHtmlPage(const std::string& path, const nlohmann::json& data, std::string* error);

// WriteHtmlPage(path, HtmlPageData(...)).
bool WriteHtml(const std::string& path, const analyzers::Report& report,
               analyzers::LeakKindSet leak_kinds, const analyzers::RangeProfile& range,
               const analyzers::html::PageBase* base, const nlohmann::json& bench,
               std::string* error);

}  // namespace heaprec::heapreplay

#endif  // HEAPREC_HEAPREPLAY_HTML_OUTPUT_H_
