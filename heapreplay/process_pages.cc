// One page for several traces (process_pages.h).
#include "heapreplay/process_pages.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "analyzers/process_table.h"
#include "heapreplay/analysis_plan.h"
#include "heapreplay/html_output.h"
#include "heapreplay/process_table_command.h"
#include "heapreplay/run_analysis.h"

namespace heaprec::heapreplay {
namespace {

// What --html does not take with several traces ("" when nothing).
std::string OneTraceOption(const Options& o) {
  if (o.report_to_stdout) return "a report on stdout (an analysis, --json, --folded)";
  if (!o.flamegraph.empty() || !o.pprof.empty() || !o.exports.empty()) {
    return "an output other than --html";
  }
  if (!o.base.empty()) return "--base";
  if (o.bench || !o.bench_json.empty()) return "--bench";
  if (o.error_exitcode != 0) return "the leak check";
  return "";
}

int Fail(int status, const std::string& error) {
  std::fprintf(stderr, "heapreplay: %s\n", error.c_str());
  return status;
}

}  // namespace

int RunProcessPages(const Options& o) {
  if (const std::string one = OneTraceOption(o); !one.empty()) {
    return Fail(2, one +
                       " takes one trace; --html with several traces or a folder writes one "
                       "page of every process (see heapreplay --help)");
  }
  std::string error;
  std::vector<std::string> traces;
  if (!ExpandTraces(o.traces, &traces, &error)) return Fail(1, error);
  std::vector<analyzers::ProcessRow> rows;
  std::vector<nlohmann::json> pages;
  for (const std::string& trace : traces) {
    Options each = o;
    each.trace = trace;
    each.traces = {trace};
    const std::unique_ptr<AnalysisPlan> plan = AnalysisPlan::Make(each, &error);
    if (!plan) return Fail(2, error);
    analyzers::Report report;
    if (!RunAnalysis(each, plan.get(), &report, &error)) return Fail(1, error);
    rows.push_back(ProcessRowOf(trace, report.trace.truncated, plan->analysis, plan->summary));
    pages.push_back(HtmlPageData(report, o.report.leak_kinds, plan->range, nullptr, nullptr));
  }
  std::vector<size_t> order(rows.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return analyzers::LargerProcess(rows[a], rows[b]); });
  std::vector<analyzers::ProcessRow> sorted;
  for (size_t i : order) sorted.push_back(rows[i]);
  nlohmann::json processes = analyzers::ProcessesJson(sorted)["processes"];
  for (size_t k = 0; k < order.size(); ++k) processes[k]["page"] = std::move(pages[order[k]]);
  const nlohmann::json data = {{"format", 1}, {"processes", std::move(processes)}};
  if (!WriteHtmlPage(o.html, data, &error)) return Fail(1, error);
  return 0;
}

}  // namespace heaprec::heapreplay
