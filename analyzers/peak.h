// PeakAnalyzer: the moment of the highest live heap bytes (time and seq) and
// what each call stack held at that moment, in one pass.
//
// It keeps live bytes and blocks per stack, and a copy of them as of the
// latest peak. Only stacks changed since the latest peak can differ from that
// copy, so a new peak copies just those (a list of touched stacks): the
// cost is O(1) per event however often the peak rises.
// An Analyzer; not thread-safe; memory proportional to distinct stacks.
#ifndef HEAPREC_ANALYZERS_PEAK_H_
#define HEAPREC_ANALYZERS_PEAK_H_

#include <cstdint>
#include <vector>

#include "analyzers/analyzer.h"
#include "analyzers/stack_totals.h"

namespace heaprec::analyzers {

class PeakAnalyzer : public Analyzer {
 public:
  bool EventsInBatches() const override { return true; }
  void OnEvents(const format::EventSpan& events, const HeapChange* changes,
                const LiveHeap& heap) override;

  uint64_t peak_bytes() const { return peak_bytes_; }
  uint64_t peak_blocks() const { return peak_blocks_; }
  uint64_t peak_time_ns() const { return peak_time_ns_; }
  uint64_t peak_seq() const { return peak_seq_; }
  // What each stack held at the peak, by bytes, largest first.
  std::vector<Site> Sites() const { return at_peak_.Sorted(Metric::kBytes); }
  // What each stack holds now (after the last event seen).
  const StackTotals& live() const { return live_; }

 private:
  friend class AnalysisState;  // analysis_state.h
  friend class CorePass;       // core_pass.h
  __attribute__((always_inline)) void One(const format::Event& e, const HeapChange& c) {
    live_.Apply(c);
    if (c.released != 0) Touch(c.released_block.stack);
    if (c.made != 0) Touch(c.made_block.stack);
    if (__builtin_expect(c.live_bytes > peak_bytes_, 0)) NewPeak(e.time_ns, e.seq, c);
  }
  // Stack changed since the latest peak.
  __attribute__((always_inline)) void Touch(uint32_t stack) {
    if (__builtin_expect(stack >= touched_.size(), 0)) touched_.resize(stack + 1 + stack / 2, 0);
    if (touched_[stack]) return;
    touched_[stack] = 1;
    touched_list_.push_back(stack);
  }
  // A new peak, after the event (time, seq) that made it.
  void NewPeak(uint64_t time_ns, uint64_t seq, const HeapChange& c);

  StackTotals live_, at_peak_;
  std::vector<uint8_t> touched_;  // per stack: changed since the latest peak
  std::vector<uint32_t> touched_list_;
  uint64_t peak_bytes_ = 0, peak_blocks_ = 0, peak_time_ns_ = 0, peak_seq_ = 0;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_PEAK_H_
