// CorePass: the summary, the peak and the hot sites as one Analyzer, which
// takes each run of events once. These three run on nearly every pass of
// heapreplay (the default report, --leaks --peak --temporaries, the trace
// index's checkpoints); added one by one, each loops over the run and reads
// every event's change (HeapChange, ~100 bytes) again. Here one loop calls
// the three per event, in the order they would be added (summary, peak, hot
// sites), through the same per-event code (their One()), so they end with
// the same totals, bytes for bytes. With the heap's apply and account in one
// loop too (Analysis::Step), heapreplay --leaks --peak --temporaries took
// 2-8% less CPU on the benchmark traces (15 interleaved runs; churn 694 ->
// 640 ms, mt_handoff 765 -> 698 ms over 21), the same output.
//
// An Analyzer; not thread-safe; owns nothing (the three analyzers stay the
// caller's, read as before once the pass ends).
#ifndef HEAPREC_ANALYZERS_CORE_PASS_H_
#define HEAPREC_ANALYZERS_CORE_PASS_H_

#include "analyzers/analyzer.h"
#include "analyzers/hot.h"
#include "analyzers/peak.h"
#include "analyzers/summary.h"

namespace heaprec::analyzers {

class CorePass : public Analyzer {
 public:
  // summary: always; peak and hot: null when the pass does not run them.
  CorePass(SummaryAnalyzer* summary, PeakAnalyzer* peak, HotAnalyzer* hot)
      : summary_(summary), peak_(peak), hot_(hot) {}

  bool EventsInBatches() const override { return true; }
  void OnEvents(const format::EventSpan& events, const HeapChange* changes,
                const LiveHeap& heap) override;
  // Alone in the pass, it applies the events too: the heap's apply, the
  // pass's count and the three in one loop, with each change in a local.
  bool AppliesEvents() const override { return true; }
  void ApplyAndTake(const format::EventSpan& events, LiveHeap* heap, EventTally* tally) override;

 private:
  template <bool kPeak, bool kHot>
  void Run(const format::EventSpan& events, const HeapChange* changes);
  template <bool kPeak, bool kHot>
  void ApplyAndRun(const format::EventSpan& events, LiveHeap* heap, EventTally* tally);

  SummaryAnalyzer* summary_;
  PeakAnalyzer* peak_;
  HotAnalyzer* hot_;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_CORE_PASS_H_
