// The --html page (html_output.h).
#include "heapreplay/html_output.h"

#include <fstream>
#include <sstream>

#include "analyzers/html/html_page.h"
#include "heapreplay/outputs.h"

namespace heaprec::heapreplay {

bool ReadBenchJson(const std::string& path, nlohmann::json* bench, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = path + ": cannot read the file";
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    *error = path + ": not JSON (expected the output of heapreplay --bench --json)";
    return false;
  }
  if (j.is_object() && j.contains("bench")) j = j["bench"];
  if (!j.is_object() || !j.contains("allocators") || !j["allocators"].is_array()) {
    *error =
        path + ": no allocator results in it (expected the output of heapreplay --bench --json)";
    return false;
  }
  *bench = std::move(j);
  return true;
}

nlohmann::json HtmlPageData(const analyzers::Report& r, analyzers::LeakKindSet leak_kinds,
                            const analyzers::RangeProfile& range,
                            const analyzers::html::PageBase* base, const nlohmann::json& bench) {
  analyzers::html::PageInputs in;
  in.trace = r.trace;
  in.analysis = r.analysis;
  in.summary = r.summary;
  in.range = &range;
  if (r.leak_report) in.leaks = &*r.leak_report;
  in.leak_kinds = leak_kinds;
  in.notes = r.notes;
  in.missing_symbols = r.missing_symbols;
  in.base = base;
  in.bench = bench;
  in.lifetimes = r.lifetimes;
  return analyzers::html::PageData(in);
}

bool WriteHtmlPage(const std::string& path, const nlohmann::json& data, std::string* error) {
  return WriteTextFile(path, analyzers::html::HtmlPage(data), error);
}

bool WriteHtml(const std::string& path, const analyzers::Report& r,
               analyzers::LeakKindSet leak_kinds, const analyzers::RangeProfile& range,
               const analyzers::html::PageBase* base, const nlohmann::json& bench,
               std::string* error) {
  return WriteHtmlPage(path, HtmlPageData(r, leak_kinds, range, base, bench), error);
}

}  // namespace heaprec::heapreplay
