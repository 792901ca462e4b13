// The peak and who held it (peak.h).
#include "analyzers/peak.h"

namespace heaprec::analyzers {

void PeakAnalyzer::NewPeak(uint64_t time_ns, uint64_t seq, const HeapChange& c) {
  peak_bytes_ = c.live_bytes;
  peak_blocks_ = c.live_blocks;
  peak_time_ns_ = time_ns;
  peak_seq_ = seq;
  for (uint32_t s : touched_list_) {
    at_peak_[s] = live_[s];
    touched_[s] = 0;
  }
  touched_list_.clear();
}

void PeakAnalyzer::OnEvents(const format::EventSpan& events, const HeapChange* changes,
                            const LiveHeap&) {
  format::ForEachEvent(
      events, [&](const format::Event& e, size_t i)
                  __attribute__((always_inline)) { One(e, changes[i]); });
}

}  // namespace heaprec::analyzers
