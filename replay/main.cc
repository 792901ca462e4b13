// heapreplay: answers questions about a heaprec trace, offline, in one
// streaming pass (options.h lists them). Exit 0 on success (a truncated trace
// warns on stderr with the word "truncated"); 1 with one line naming the file
// for anything unreadable; 2 for usage errors.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analyzers/analysis.h"
#include "analyzers/diff.h"
#include "analyzers/histogram.h"
#include "analyzers/hot.h"
#include "analyzers/leaks.h"
#include "analyzers/mismatches.h"
#include "analyzers/peak.h"
#include "analyzers/range_profile.h"
#include "analyzers/report.h"
#include "analyzers/summary.h"
#include "analyzers/timeline.h"
#include "format/read_ahead.h"
#include "replay/bench.h"
#include "replay/bench_worker.h"
#include "replay/html_output.h"
#include "replay/options.h"
#include "replay/outputs.h"
#include "replay/symbolize.h"

namespace {

using namespace heaprec;
using analyzers::Moment;

int Usage(const std::string& error) {
  std::fprintf(stderr, "heapreplay: %s (see heapreplay --help)\n", error.c_str());
  return 2;
}

bool ParseMomentOrSay(const std::string& text, const char* option, Moment* m) {
  std::string error;
  const auto parsed = analyzers::ParseMoment(text, &error);
  if (!parsed) {
    Usage(std::string(option) + ": " + error);
    return false;
  }
  *m = *parsed;
  return true;
}

// Reads path into visitor; false (message printed) when unreadable.
bool Read(const std::string& path, format::TraceVisitor& visitor, analyzers::TraceInfo* info) {
  const format::ReadResult r = format::ReadTraceFileAhead(path, visitor);
  if (r.status == format::ReadResult::kError) {
    std::fprintf(stderr, "heapreplay: %s\n", r.message.c_str());
    return false;
  }
  *info = {path, r.version, r.status == format::ReadResult::kTruncated};
  if (info->truncated) std::fprintf(stderr, "heapreplay: warning: %s\n", r.message.c_str());
  return true;
}

std::string Markers(const analyzers::Analysis& a) {
  std::string list;
  for (const format::Marker& m : a.markers()) list += (list.empty() ? "" : ", ") + m.label;
  return list.empty() ? "the trace has none" : "markers: " + list;
}

// A label moment that the trace never reached is a mistake worth an error.
bool CheckReached(const analyzers::MomentWatch& w, const analyzers::Analysis& a,
                  const std::string& path, const char* option) {
  if (w.moment().kind != Moment::Kind::kLabel || w.reached()) return true;
  std::fprintf(stderr, "heapreplay: %s: %s: no marker '%s' (%s)\n", path.c_str(), option,
               w.moment().label.c_str(), Markers(a).c_str());
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == replay::kWorkerFlag) {
    return replay::RunBenchWorker(argc, argv);
  }
  replay::Options o;
  std::string error;
  if (!replay::ParseOptions(argc, argv, &o, &error)) return Usage(error);
  if (o.help) {
    std::fputs(replay::UsageText().c_str(), stdout);
    return 0;
  }
  const bool html = !o.html.empty();
  if (o.bench && !html) return replay::RunBench(o);
  // The allocator comparison for the page: run now, or saved earlier.
  nlohmann::json bench;
  std::string bench_text;
  if (o.bench) {
    const int status = replay::CollectBench(o, &bench_text, &bench);
    if (status != 0) return status;
  } else if (!o.bench_json.empty() && !replay::ReadBenchJson(o.bench_json, &bench, &error)) {
    std::fprintf(stderr, "heapreplay: %s\n", error.c_str());
    return 1;
  }
  Moment at, from, to;
  if (!o.at.empty() && !ParseMomentOrSay(o.at, "--at", &at)) return 2;
  if (!o.from.empty() && !ParseMomentOrSay(o.from, "--from", &from)) return 2;
  if (!o.to.empty() && !ParseMomentOrSay(o.to, "--to", &to)) return 2;

  analyzers::Analysis analysis(at);
  analyzers::SummaryAnalyzer summary;
  analyzers::PeakAnalyzer peak;
  analyzers::HotAnalyzer hot;
  analyzers::HistogramAnalyzer histogram;
  analyzers::TimelineAnalyzer timeline;
  analyzers::MismatchAnalyzer mismatches;
  analyzers::RangeProfile range;
  std::unique_ptr<analyzers::LiveSnapshot> before, after;
  const analyzers::ReportOptions& want = o.report;
  // Only what is asked costs time per event. Hot sites also feed --pprof's
  // alloc samples and the default drawing (outputs.h).
  const bool drawn = o.folded || !o.flamegraph.empty();
  const bool need_peak = want.peak || want.overview;
  const bool need_hot = want.hot || want.temporaries || want.overview || !o.pprof.empty() ||
                        (drawn && !want.leaks && !want.peak);
  analysis.Add(&summary);
  if (need_peak) analysis.Add(&peak);
  if (need_hot) analysis.Add(&hot);
  if (want.histogram) analysis.Add(&histogram);
  if (want.timeline) analysis.Add(&timeline);
  if (want.mismatches) analysis.Add(&mismatches);
  if (html) analysis.Add(&range);
  if (o.diff) {
    if (o.base.empty()) {
      before = std::make_unique<analyzers::LiveSnapshot>(from);
      analysis.Add(before.get());
    }
    after = std::make_unique<analyzers::LiveSnapshot>(to);
    analysis.Add(after.get());
  }

  analyzers::Report report;
  if (!Read(o.trace, analysis, &report.trace)) return 1;
  if (analysis.stop() && !CheckReached(*analysis.stop(), analysis, o.trace, "--at")) return 1;
  if (before && !CheckReached(before->watch(), analysis, o.trace, "--from")) return 1;
  if (after && !CheckReached(after->watch(), analysis, o.trace, "--to")) return 1;
  report.notes = replay::SymbolizeMissing(&analysis.symbols(), analysis.end());

  report.analysis = &analysis;
  report.summary = &summary;
  report.leaks = analyzers::LeakSites(analysis.heap());
  if (need_peak) report.peak = &peak;
  if (need_hot) report.hot = &hot;
  if (want.histogram) report.histogram = &histogram;
  if (want.timeline) report.timeline = &timeline;
  if (want.mismatches) report.mismatches = &mismatches;

  // --base: the other trace's live heap at its end (and for the page, its
  // peak, allocation calls and temporaries).
  analyzers::Analysis base_analysis;
  analyzers::SummaryAnalyzer base_summary;
  analyzers::PeakAnalyzer base_peak;
  analyzers::HotAnalyzer base_hot;
  if (html) {
    base_analysis.Add(&base_summary);
    base_analysis.Add(&base_peak);
    base_analysis.Add(&base_hot);
  }
  if (o.diff) {
    analyzers::DiffResult d;
    d.to = o.to.empty() ? "end" : o.to;
    if (o.base.empty()) {
      d.from = o.from;
      d.sites = analyzers::DiffSites(before->Sites(), analysis.symbols(), after->Sites(),
                                     analysis.symbols());
    } else {
      analyzers::TraceInfo base_info;
      if (!Read(o.base, base_analysis, &base_info)) return 1;
      replay::SymbolizeMissing(&base_analysis.symbols(), base_analysis.end());
      d.from = o.base;
      d.across_traces = true;
      d.sites = analyzers::DiffSites(analyzers::LeakSites(base_analysis.heap()),
                                     base_analysis.symbols(), after->Sites(), analysis.symbols());
    }
    report.diff = std::move(d);
  }

  if (!replay::WriteFiles(o, report, &error)) {
    std::fprintf(stderr, "heapreplay: %s\n", error.c_str());
    return 1;
  }
  if (html) {
    range.Finish(analysis.heap());
    const analyzers::html::PageBase base{o.base, &base_analysis, &base_summary, &base_peak,
                                         &base_hot};
    if (!replay::WriteHtml(o.html, report, range, o.base.empty() ? nullptr : &base, bench,
                           &error)) {
      std::fprintf(stderr, "heapreplay: %s\n", error.c_str());
      return 1;
    }
  }
  std::string out;
  if (o.json) {
    nlohmann::json j = analyzers::JsonReportValue(report, want);
    if (!bench.is_null()) j["bench"] = bench;
    out = analyzers::JsonReportText(j);
  } else if (o.folded) {
    out = replay::Folded(o, report);
  } else if (want.timeline) {
    out = analyzers::TimelineCsv(timeline.points());
  } else {
    out = analyzers::TextReport(report, want) + (bench_text.empty() ? "" : "\n" + bench_text);
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}
