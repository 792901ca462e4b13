// heapreplay's files and stdout (report_output.h).
#include "heapreplay/report_output.h"

#include <cstdio>

#include "analyzers/html/page_data.h"
#include "analyzers/sampling_notice.h"
#include "analyzers/timeline.h"
#include "heapreplay/export_formats.h"
#include "heapreplay/html_output.h"
#include "heapreplay/outputs.h"

namespace heaprec::heapreplay {

namespace {

void WriteJson(const Options& o, const analyzers::Report& report, const BenchShown& bench,
               analyzers::JsonText* out) {
  analyzers::JsonReportDoc doc = analyzers::JsonReportValue(report, o.report);
  if (!bench.json.is_null()) doc.value["bench"] = bench.json;
  analyzers::WriteJsonReport(doc, out);
}

}  // namespace

std::string StdoutText(const Options& o, const analyzers::Report& report, const BenchShown& bench) {
  if (o.json) {
    analyzers::JsonText out;
    WriteJson(o, report, bench, &out);
    return out.text();
  }
  if (o.folded) return Folded(o, report);
  if (o.report.timeline)
    return analyzers::TimelineCsv(report.timeline->points(), report.timeline->has_rss());
  return analyzers::TextReport(report, o.report) + (bench.text.empty() ? "" : "\n" + bench.text);
}

bool WriteOutputs(const Options& o, const analyzers::Report& report, const AnalysisPlan& plan,
                  const BenchShown& bench, std::string* error) {
  if (!WriteFiles(o, report, error)) return false;
  ExportJob job;
  job.report = &report;
  job.analyzers = &plan.exports;
  job.trace = o.trace;
  job.folded = [&] { return Folded(o, report); };
  job.write_pprof = [&](const std::string& file, std::string* e) {
    return WritePprofFile(o, report, file, e);
  };
  for (const Options::Export& e : o.exports) {
    if (!FindExportFormat(e.format)->write(job, e.file, error)) return false;
  }
  if (!o.html.empty()) {
    const analyzers::html::PageBase base{o.base,          &plan.base,     &plan.base_summary,
                                         &plan.base_peak, &plan.base_hot, &plan.suppressions};
    if (!WriteHtml(o.html, report, o.report.leak_kinds, plan.range,
                   o.base.empty() ? nullptr : &base, bench.json, error)) {
      return false;
    }
  }
  if (o.report_to_stdout && o.json) {
    analyzers::JsonText out(stdout);  // written as it goes: never whole in memory
    WriteJson(o, report, bench, &out);
  } else if (o.report_to_stdout) {
    std::fputs(StdoutText(o, report, bench).c_str(), stdout);
  }
  // Folded stacks and the timeline's CSV have no room for it on stdout.
  const analyzers::LiveHeap& heap = report.analysis->heap();
  if (o.report_to_stdout && !o.json && (o.folded || o.report.timeline) && heap.sampled()) {
    std::fprintf(stderr, "heapreplay: %s\n", analyzers::SamplingNotice(heap.sample_rate()).c_str());
  }
  return true;
}

}  // namespace heaprec::heapreplay
