// SummaryAnalyzer: counts, peak, temporaries (summary.h).
#include "analyzers/summary.h"

namespace heaprec::analyzers {

void SummaryAnalyzer::OnEvent(const format::Event& e, const HeapChange& c, const LiveHeap& heap) {
  ++events_;
  if (e.time_ns > last_time_ns_) last_time_ns_ = e.time_ns;
  if (e.CountsAsAllocation()) {
    ++allocations_;
    bytes_allocated_ += e.size;
  }
  if (e.CountsAsFree()) ++frees_;
  if (temporary_watch_.Step(c)) ++temporaries_;
  if (heap.live_bytes() > peak_bytes_) {
    peak_bytes_ = heap.live_bytes();
    peak_time_ns_ = e.time_ns;
    peak_seq_ = e.seq;
  }
}

}  // namespace heaprec::analyzers
