// AnalysisState: what a pass has built from a trace's events up to a chunk
// boundary, as bytes for heapreplay's trace index (FORMAT.md, "The trace
// index"): the live heap (every live block: number, size, stack, api; the
// totals and the coverage flag), the summary's counts and peak, the RSS
// track, and the heap changes since the last leak scan. What the other
// records build (symbols, stacks, modules, threads, markers, leak scans) is
// not here: a read that resumes from a checkpoint skims the chunks before
// and delivers those again (format::ReaderOptions::resume).
//
// Restore puts a saved state into a fresh Analysis and SummaryAnalyzer
// before its read; the Analysis finishes it at OnResume. Only analyses that
// depend on nothing but these (the summary, the live heap, moments' live
// snapshots) can start from a checkpoint; heapreplay decides which.
// Allocates; not thread-safe.
#ifndef HEAPREC_ANALYZERS_ANALYSIS_STATE_H_
#define HEAPREC_ANALYZERS_ANALYSIS_STATE_H_

#include <string>
#include <string_view>

#include "analyzers/analysis.h"
#include "analyzers/summary.h"
#include "format/state_bytes.h"

namespace heaprec::analyzers {

class AnalysisState {
 public:
  static void Save(const Analysis& a, const SummaryAnalyzer& s, format::StateWriter* w);
  // False (and a and s partly written) for bytes that are not a state.
  static bool Restore(format::StateReader* r, Analysis* a, SummaryAnalyzer* s);
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_ANALYSIS_STATE_H_
