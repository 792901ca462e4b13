// SummaryAnalyzer: counts, peak, temporaries (summary.h).
#include "analyzers/summary.h"

namespace heaprec::analyzers {

void SummaryAnalyzer::OnEvent(const format::Event& e, const HeapChange& c, const LiveHeap& heap) {
  ++events_;
  if (e.time_ns > last_time_ns_) last_time_ns_ = e.time_ns;
  switch (e.kind()) {
    case format::EventKind::kAlloc:
    case format::EventKind::kRealloc:
      if (IsNewAllocation(e, c)) {
        ++allocations_;
        bytes_allocated_ += e.size;
        last_allocated_ = c.made;
      }
      if (e.IsFreeingRealloc()) ++frees_;  // realloc(p, 0), or the first half of a move
      break;
    case format::EventKind::kFree:
      if (e.IsNullFree()) break;
      ++frees_;
      if (IsTemporaryFree(c, last_allocated_)) ++temporaries_;
      last_allocated_ = 0;
      break;
    case format::EventKind::kInvalid:
      break;
  }
  if (heap.live_bytes() > peak_bytes_) {
    peak_bytes_ = heap.live_bytes();
    peak_time_ns_ = e.time_ns;
    peak_seq_ = e.seq;
  }
}

}  // namespace heaprec::analyzers
