// The peak and who held it (peak.h).
#include "analyzers/peak.h"

namespace heaprec::analyzers {

void PeakAnalyzer::Touch(uint32_t stack) {
  if (stack >= touched_.size()) touched_.resize(stack + 1 + stack / 2, 0);
  if (touched_[stack]) return;
  touched_[stack] = 1;
  touched_list_.push_back(stack);
}

void PeakAnalyzer::OnEvent(const format::Event& e, const HeapChange& c, const LiveHeap& heap) {
  live_.Apply(c);
  if (c.released != 0) Touch(c.released_block.stack);
  if (c.made != 0) Touch(c.made_block.stack);
  if (heap.live_bytes() <= peak_bytes_) return;
  peak_bytes_ = heap.live_bytes();
  peak_blocks_ = heap.live_blocks();
  peak_time_ns_ = e.time_ns;
  peak_seq_ = e.seq;
  for (uint32_t s : touched_list_) {
    at_peak_[s] = live_[s];
    touched_[s] = 0;
  }
  touched_list_.clear();
}

}  // namespace heaprec::analyzers
