// heapreplay's plan for one pass: from Options, the analyzers that the named
// analyses and outputs need (only what is asked costs time per event), owned
// here and added to the trace's Analysis, and the --base trace's (its live
// heap at the end, and for --html its peak, allocation calls and
// temporaries). run_analysis.h reads the traces through it.
// Allocates; main thread only.
#ifndef HEAPREC_HEAPREPLAY_ANALYSIS_PLAN_H_
#define HEAPREC_HEAPREPLAY_ANALYSIS_PLAN_H_

#include <memory>
#include <string>

#include "analyzers/analysis.h"
#include "analyzers/core_pass.h"
#include "analyzers/diff.h"
#include "analyzers/heaptrack_export.h"
#include "analyzers/histogram.h"
#include "analyzers/hot.h"
#include "analyzers/lifetimes.h"
#include "analyzers/mismatches.h"
#include "analyzers/moment.h"
#include "analyzers/peak.h"
#include "analyzers/range_profile.h"
#include "analyzers/summary.h"
#include "analyzers/suppressions.h"
#include "analyzers/timeline.h"
#include "heapreplay/export_formats.h"
#include "heapreplay/options.h"

namespace heaprec::heapreplay {

struct AnalysisPlan {
  // The plan for `o`, or null + one line in *error for a malformed --at,
  // --from or --to ("--at: ..."; a usage error).
  static std::unique_ptr<AnalysisPlan> Make(const Options& o, std::string* error);

  AnalysisPlan(const Options& o, const analyzers::Moment& at, const analyzers::Moment& from,
               const analyzers::Moment& to);
  AnalysisPlan(const AnalysisPlan&) = delete;
  AnalysisPlan& operator=(const AnalysisPlan&) = delete;

  // Set by the pass: it started from a checkpoint of the trace index
  // (index_use.h) rather than from the trace's start.
  // from_frame: and it decompressed from a later zstd frame than the first.
  bool from_checkpoint = false, from_frame = false;

  // What runs besides the summary and the live heap, for the report. Hot
  // sites also feed --pprof's alloc samples and the default drawing
  // (outputs.h). A pass that writes the trace index runs peak and hot
  // anyway (index_use.h); these still say what the report shows.
  bool peak_run = false, hot_run = false, lifetimes_run = false;

  // The trace, stopped at --at if given.
  analyzers::Analysis analysis;
  analyzers::SummaryAnalyzer summary;
  analyzers::PeakAnalyzer peak;
  analyzers::HotAnalyzer hot;
  // summary, peak (if peak_run) and hot (if hot_run), added as one.
  analyzers::CorePass core{&summary, nullptr, nullptr};
  analyzers::HistogramAnalyzer histogram;
  analyzers::TimelineAnalyzer timeline;
  analyzers::LifetimeAnalyzer lifetimes;  // --json with hot or temporaries sites, or --html
  analyzers::MismatchAnalyzer mismatches;
  analyzers::RangeProfile range;                    // --html
  ExportAnalyzers exports{&peak};                   // --export (after peak)
  std::unique_ptr<analyzers::LiveSnapshot> before;  // --diff --from
  std::unique_ptr<analyzers::LiveSnapshot> after;   // --diff: --to or the end

  // --suppressions, read before the pass (the leak report points into it).
  analyzers::Suppressions suppressions;

  // The --base trace.
  analyzers::Analysis base;
  analyzers::SummaryAnalyzer base_summary;
  analyzers::PeakAnalyzer base_peak;
  analyzers::HotAnalyzer base_hot;
  analyzers::CorePass base_core{&base_summary, &base_peak, &base_hot};
};

}  // namespace heaprec::heapreplay

#endif  // HEAPREC_HEAPREPLAY_ANALYSIS_PLAN_H_
