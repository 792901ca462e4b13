// Allocation sizes in power-of-two buckets (histogram.h).
#include "analyzers/histogram.h"

#include "analyzers/estimate.h"

namespace heaprec::analyzers {

int HistogramAnalyzer::BucketOf(uint64_t size) {
  return size == 0 ? 0 : 64 - __builtin_clzll(size);
}

SizeBucket HistogramAnalyzer::bucket(int k) const {
  SizeBucket b;
  if (k > 0) {
    b.low = uint64_t{1} << (k - 1);
    b.high = k == 64 ? UINT64_MAX : (uint64_t{1} << k) - 1;
  }
  b.count = count_[k];
  b.bytes = bytes_[k];
  return b;
}

__attribute__((always_inline)) inline void HistogramAnalyzer::One(const format::Event& e,
                                                                  const HeapChange& c) {
  if (!e.CountsAsAllocation()) return;
  const int k = BucketOf(e.size);
  const Estimate est = EstimateOf(e.size, e.weight, e.block);
  count_[k] += est.count;
  bytes_[k] += est.bytes;
}

void HistogramAnalyzer::OnEvents(const format::EventSpan& events, const HeapChange* changes,
                                 const LiveHeap&) {
  format::ForEachEvent(
      events, [&](const format::Event& e, size_t i)
                  __attribute__((always_inline)) { One(e, changes[i]); });
}

}  // namespace heaprec::analyzers
