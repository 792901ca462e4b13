// SummaryAnalyzer: counts, peak, temporaries (summary.h).
#include "analyzers/summary.h"

#include "analyzers/estimate.h"

namespace heaprec::analyzers {

__attribute__((always_inline)) inline void SummaryAnalyzer::One(const format::Event& e,
                                                                const HeapChange& c) {
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

void SummaryAnalyzer::OnEvents(const format::EventSpan& events, const HeapChange* changes,
                               const LiveHeap&) {
  for (size_t i = 0; i < events.count; ++i) One(events.At(i), changes[i]);
}

}  // namespace heaprec::analyzers
