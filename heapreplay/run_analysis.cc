// heapreplay's pass over the trace and the base trace (run_analysis.h).
#include "heapreplay/run_analysis.h"

#include <cstdio>
#include <optional>
#include <utility>
#include <vector>

#include "analyzers/leaks.h"
#include "analyzers/missing_symbols.h"
#include "format/any_trace_reader.h"
#include "heapreplay/heaptrack_notes.h"
#include "heapreplay/index_use.h"
#include "heapreplay/progress_meter.h"
#include "heapreplay/symbolize_missing.h"

namespace heaprec::heapreplay {
namespace {

using analyzers::Moment;

// Reads path into visitor; false + *error when unreadable.
bool Read(const std::string& path, format::TraceVisitor& visitor, analyzers::TraceInfo* info,
          std::string* error, uint64_t* chunks = nullptr,
          std::optional<format::HeaptrackFacts>* heaptrack = nullptr,
          format::ReaderOptions options = {}) {
  std::optional<format::HeaptrackFacts> facts;
  format::ReadProgress progress;
  options.progress = &progress;
  format::ReadResult r;
  {
    const ProgressMeter meter(path, &progress);  // erases its line when the read ends
    r = format::ReadAnyTraceFile(path, visitor, &facts, options);
  }
  if (chunks != nullptr) *chunks = r.chunks;
  if (r.status == format::ReadResult::kError) {
    *error = r.message;
    return false;
  }
  *info = {path, r.version, r.status == format::ReadResult::kTruncated};
  if (facts) {
    info->recorded_by = facts->Describe();
    info->lacks = format::HeaptrackLacks();
  }
  if (heaptrack != nullptr) *heaptrack = std::move(facts);
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
                  const std::string& path, const char* option, std::string* error) {
  if (w.moment().kind != Moment::Kind::kLabel || w.reached()) return true;
  *error = path + ": " + option + ": no marker '" + w.moment().label + "' (" + Markers(a) + ")";
  return false;
}

// --diff: between two moments of the trace, or from the --base trace's end.
bool Diff(const Options& o, AnalysisPlan* p, analyzers::DiffResult* d, std::string* error) {
  d->to = o.to.empty() ? "end" : o.to;
  if (o.base.empty()) {
    d->from = o.from;
    d->sites = analyzers::DiffSites(p->before->Sites(), p->analysis.symbols(), p->after->Sites(),
                                    p->analysis.symbols());
    return true;
  }
  analyzers::TraceInfo base_info;
  if (!Read(o.base, p->base, &base_info, error)) return false;
  SymbolizeMissing(&p->base.symbols(), p->base.end(), o.debug_dirs);
  d->from = o.base;
  d->across_traces = true;
  d->base_sample_rate = p->base.heap().sample_rate();
  d->sites = analyzers::DiffSites(analyzers::LeakSites(p->base.heap()), p->base.symbols(),
                                  p->after->Sites(), p->analysis.symbols());
  return true;
}

}  // namespace

bool RunAnalysis(const Options& o, AnalysisPlan* p, analyzers::Report* report, std::string* error) {
  analyzers::Analysis& a = p->analysis;
  // --alloc-fn: what Frame::allocator marks, in both traces' frames.
  a.symbols().SetAllocFunctions(o.alloc_functions);
  p->base.symbols().SetAllocFunctions(o.alloc_functions);
  for (const std::string& file : o.suppressions) {
    if (!p->suppressions.AddFile(file, error)) return false;
  }
  uint64_t chunks = 0;
  std::optional<format::HeaptrackFacts> heaptrack;
  IndexUse index;  // the trace index: skips to a checkpoint, or writes one
  format::ReaderOptions seek;
  index.Prepare(o, p, &seek);
  if (!Read(o.trace, a, &report->trace, error, &chunks, &heaptrack, seek)) return false;
  index.Finish(o, *p);
  if (chunks == 0 && o.error_exitcode != 0) {
    // A gate must not pass on nothing.
    *error = o.trace + ": no complete chunk: nothing to check for leaks";
    return false;
  }
  if (a.stop() && !CheckReached(*a.stop(), a, o.trace, "--at", error)) return false;
  if (p->before && !CheckReached(p->before->watch(), a, o.trace, "--from", error)) return false;
  if (p->after && !CheckReached(p->after->watch(), a, o.trace, "--to", error)) return false;
  report->notes = SymbolizeMissing(&a.symbols(), a.end(), o.debug_dirs);
  if (heaptrack) {
    const uint64_t temporaries =
        a.stopped() ? heaptrack->heaptrack_print_temporaries : p->summary.temporaries();
    for (std::string& note : HeaptrackNotes(*heaptrack, temporaries, a)) {
      report->notes.push_back(std::move(note));
    }
  }
  report->missing_symbols = analyzers::FindMissingSymbols(a.symbols());

  const analyzers::ReportOptions& want = o.report;
  report->analysis = &a;
  report->summary = &p->summary;
  report->leak_report =
      analyzers::BuildLeakReport(a.heap(), a.LeakScanNow(), a.LeakScanMissing(), a.symbols(),
                                 o.suppressions.empty() ? nullptr : &p->suppressions);
  report->leaks = analyzers::ShownSites(*report->leak_report, want.leak_kinds);
  if (p->peak_run) report->peak = &p->peak;
  if (p->hot_run) report->hot = &p->hot;
  if (p->lifetimes_run) report->lifetimes = &p->lifetimes;
  if (want.histogram) report->histogram = &p->histogram;
  if (want.timeline) report->timeline = &p->timeline;
  if (want.mismatches) report->mismatches = &p->mismatches;
  if (o.diff) {
    analyzers::DiffResult d;
    if (!Diff(o, p, &d, error)) return false;
    report->diff = std::move(d);
  }
  if (!o.html.empty()) {
    p->range.Finish(a.heap(), analyzers::ShownBlocks(*report->leak_report, want.leak_kinds));
  }
  return true;
}

}  // namespace heaprec::heapreplay
