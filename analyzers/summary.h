// SummaryAnalyzer: the numbers every report starts with (docs/DESIGN.md's
// "summary"): allocations, frees and bytes allocated as valgrind's "total
// heap usage" counts them (Event::CountsAsAllocation, CountsAsFree), the
// peak of live bytes and when it happened, temporaries (heaptrack's, exactly:
// temporaries.h) and the duration. What is still live (leaked) is the
// Analysis's LiveHeap at the end.
// An Analyzer; not thread-safe; constant memory.
#ifndef HEAPREC_ANALYZERS_SUMMARY_H_
#define HEAPREC_ANALYZERS_SUMMARY_H_

#include <cstdint>

#include "analyzers/analyzer.h"
#include "analyzers/estimate.h"

namespace heaprec::analyzers {

class SummaryAnalyzer : public Analyzer {
 public:
  bool EventsInBatches() const override { return true; }
  void OnEvents(const format::EventSpan& events, const HeapChange* changes,
                const LiveHeap& heap) override;

  uint64_t allocations() const { return allocations_; }
  uint64_t frees() const { return frees_; }
  uint64_t bytes_allocated() const { return bytes_allocated_; }
  uint64_t peak_bytes() const { return peak_bytes_; }
  uint64_t peak_time_ns() const { return peak_time_ns_; }
  uint64_t peak_seq() const { return peak_seq_; }
  uint64_t temporaries() const { return temporaries_; }
  uint64_t duration_ns() const { return last_time_ns_; }
  uint64_t events() const { return events_; }

 private:
  friend class AnalysisState;  // analysis_state.h
  friend class CorePass;       // core_pass.h
  __attribute__((always_inline)) void One(const format::Event& e, const HeapChange& c) {
    ++events_;
    if (e.time_ns > last_time_ns_) last_time_ns_ = e.time_ns;
    if (e.CountsAsAllocation()) {
      const Estimate est = EstimateOf(e.size, e.weight, e.block);
      allocations_ += est.count;
      bytes_allocated_ += est.bytes;
    }
    if (e.CountsAsFree()) frees_ += c.released != 0 ? c.released_est.count : 1;
    if (c.temporary) temporaries_ += c.released_est.count;
    if (c.live_bytes > peak_bytes_) {
      peak_bytes_ = c.live_bytes;
      peak_time_ns_ = e.time_ns;
      peak_seq_ = e.seq;
    }
  }
  uint64_t allocations_ = 0, frees_ = 0, bytes_allocated_ = 0, events_ = 0;
  uint64_t peak_bytes_ = 0, peak_time_ns_ = 0, peak_seq_ = 0;
  uint64_t temporaries_ = 0, last_time_ns_ = 0;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_SUMMARY_H_
