// SummaryAnalyzer: counts, peak, temporaries (summary.h).
#include "analyzers/summary.h"

namespace heaprec::analyzers {

void SummaryAnalyzer::OnEvent(const format::Event& e) {
  if (e.time_ns > last_time_ns_) last_time_ns_ = e.time_ns;
  switch (e.kind()) {
    case format::EventKind::kAlloc:
      if (e.block == 0) break;
      ++allocations_;
      bytes_allocated_ += e.size;
      last_allocated_ = e.block;
      break;
    case format::EventKind::kRealloc:
      if (e.block != 0 && e.old_block == 0) {
        ++allocations_;  // a new block (realloc(NULL, n) or the new half of a move)
        bytes_allocated_ += e.size;
        last_allocated_ = e.block;
      }
      if (e.old_block != 0 && e.block == 0 && e.size == 0) ++frees_;
      break;
    case format::EventKind::kFree:
      if (e.block == 0 && e.address == 0) break;  // free(NULL)
      ++frees_;
      if (e.block != 0 && e.block == last_allocated_) ++temporaries_;
      last_allocated_ = 0;
      break;
    case format::EventKind::kInvalid:
      break;
  }
  heap_.Apply(e);
  if (heap_.live_bytes() > peak_bytes_) {
    peak_bytes_ = heap_.live_bytes();
    peak_time_ns_ = e.time_ns;
    peak_seq_ = e.seq;
  }
}

}  // namespace heaprec::analyzers
