// HistogramAnalyzer: the sizes of allocation calls in power-of-two buckets
// (heapreplay --histogram): bucket 0 holds size 0, bucket k >= 1 holds sizes
// in [2^(k-1), 2^k), so 1, 2-3, 4-7, ... Each bucket counts calls and bytes.
// The same calls as SummaryAnalyzer's allocations.
// An Analyzer; not thread-safe; constant memory.
#ifndef HEAPREC_ANALYZERS_HISTOGRAM_H_
#define HEAPREC_ANALYZERS_HISTOGRAM_H_

#include <array>
#include <cstdint>

#include "analyzers/analyzer.h"

namespace heaprec::analyzers {

struct SizeBucket {
  uint64_t low = 0;   // smallest size in the bucket
  uint64_t high = 0;  // largest size in the bucket
  uint64_t count = 0;
  uint64_t bytes = 0;
};

class HistogramAnalyzer : public Analyzer {
 public:
  static constexpr int kBuckets = 65;

  bool EventsInBatches() const override { return true; }
  void OnEvents(const format::EventSpan& events, const HeapChange* changes,
                const LiveHeap& heap) override;

  // Bucket k (see above), with its bounds filled in.
  SizeBucket bucket(int k) const;
  static int BucketOf(uint64_t size);

 private:
  void One(const format::Event& e, const HeapChange& c);
  std::array<uint64_t, kBuckets> count_{}, bytes_{};
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_HISTOGRAM_H_
