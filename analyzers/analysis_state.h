// AnalysisState: what a pass has built from a trace's events up to a chunk
// boundary, as bytes for heapreplay's trace index (FORMAT.md, "The trace
// index"): the live heap (every live block: number, size, stack, api; the
// totals and the coverage flag), the summary's counts and peak, the RSS
// track, the heap changes since the last leak scan, and the peak's and the
// hot sites' per-stack totals (PeakAnalyzer, HotAnalyzer: proportional to
// the distinct stacks, not to blocks). What the other
// records build (symbols, stacks, modules, threads, markers, leak scans) is
// not here: a read that resumes from a checkpoint skims the chunks before
// and delivers those again (format::ReaderOptions::resume).
//
// Restore puts a saved state into a fresh Analysis, SummaryAnalyzer,
// PeakAnalyzer and HotAnalyzer before its read; the Analysis finishes it at
// OnResume. Only analyses that depend on nothing but these (the summary, the
// live heap, moments' live snapshots, the peak, hot sites and temporaries)
// can start from a checkpoint; heapreplay decides which.
// Allocates; not thread-safe.
#ifndef HEAPREC_ANALYZERS_ANALYSIS_STATE_H_
#define HEAPREC_ANALYZERS_ANALYSIS_STATE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "analyzers/analysis.h"
#include "analyzers/hot.h"
#include "analyzers/peak.h"
#include "analyzers/summary.h"
#include "analyzers/temporaries.h"
#include "format/state_bytes.h"

namespace heaprec::analyzers {

class AnalysisState {
 public:
  static void Save(const Analysis& a, const SummaryAnalyzer& s, const PeakAnalyzer& peak,
                   const HotAnalyzer& hot, format::StateWriter* w);
  // False (and a, s, peak and hot partly written) for bytes that are not a
  // state. A null peak or hot: that part is read, checked and dropped (the
  // pass does not run that analyzer).
  static bool Restore(format::StateReader* r, Analysis* a, SummaryAnalyzer* s,
                      PeakAnalyzer* peak = nullptr, HotAnalyzer* hot = nullptr);
  // The bytes Save would write for peak and hot, about (the index's
  // budgets: known before they are saved).
  static uint64_t SitesEstimate(const PeakAnalyzer& peak, const HotAnalyzer& hot);

 private:
  static void SaveWatch(const TemporaryWatch& t, format::StateWriter* w);
  static void RestoreWatch(format::StateReader* r, TemporaryWatch* t);
  static void SavePeak(const PeakAnalyzer& p, format::StateWriter* w);
  static bool RestorePeak(format::StateReader* r, PeakAnalyzer* p);
  // watch: the heap's (LiveHeap), written where the hot sites kept theirs.
  static void SaveHot(const HotAnalyzer& h, const TemporaryWatch& watch, format::StateWriter* w);
  static bool RestoreHot(format::StateReader* r, HotAnalyzer* h);
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_ANALYSIS_STATE_H_
