// LifetimeAnalyzer: per allocation site (call stack), how long its blocks
// lived, exactly (every block of the trace, as tcmalloc's lifetime profile
// samples some): in time, and in allocations in between (the blocks the
// whole process made after this one and before its release: allocations and
// reallocs that returned a block, valgrind's count); and how many were freed
// by another thread than the one that made them.
//
// Each distribution is counted in power-of-two buckets (bucket 0 holds 0,
// bucket k the values 2^(k-1) .. 2^k - 1) with the exact sum beside it:
// means are exact, percentiles are the top of the bucket that holds them (at
// most twice the true value, and exact at 0). Times are the trace's event
// times (milliseconds in heaprec's traces: a block freed within the same
// millisecond lived 0). A realloc ends its old block's life and starts the
// new block's, as DHAT counts them. Blocks still live at the end are counted
// apart (live_at_end), not in the distributions. In a sampled trace
// (--sample-rate) the counts are of the blocks recorded, unscaled.
// An Analyzer; not thread-safe; memory: one entry per live block (a
// BlockMap: young blocks in a ring by number, no hashing) and, per site
// that released a block, its buckets (0.5 KiB).
#ifndef HEAPREC_ANALYZERS_LIFETIMES_H_
#define HEAPREC_ANALYZERS_LIFETIMES_H_

#include <array>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "analyzers/analyzer.h"
#include "analyzers/block_map.h"

namespace heaprec::analyzers {

// One distribution: power-of-two buckets and the exact sum.
struct Log2Histogram {
  static constexpr int kBuckets = 65;
  std::array<uint64_t, kBuckets> counts{};
  uint64_t total = 0;
  __int128 sum = 0;

  static int BucketOf(uint64_t v) { return v == 0 ? 0 : 64 - __builtin_clzll(v); }
  // The largest value bucket k holds (0 for k = 0).
  static uint64_t TopOf(int k) {
    return k == 0 ? 0 : k >= 64 ? UINT64_MAX : (uint64_t{1} << k) - 1;
  }
  void Add(uint64_t v) {
    ++counts[BucketOf(v)];
    ++total;
    sum += v;
  }
  // The top of the bucket holding the q-th quantile (0 < q <= 1); 0 if empty.
  uint64_t Quantile(double q) const;
  // The top of the highest bucket used; 0 if empty.
  uint64_t Max() const {
    for (int k = kBuckets - 1; k > 0; --k) {
      if (counts[k] != 0) return TopOf(k);
    }
    return 0;
  }
  double Mean() const { return total == 0 ? 0 : static_cast<double>(sum) / total; }
  void Add(const Log2Histogram& o) {
    for (int k = 0; k < kBuckets; ++k) counts[k] += o.counts[k];
    total += o.total;
    sum += o.sum;
  }
};

struct SiteLifetimes {
  Log2Histogram time_ns;
  Log2Histogram allocations_between;
  uint64_t freed_by_other_thread = 0;
  uint64_t live_at_end = 0;  // made here and never released
  void Add(const SiteLifetimes& o) {
    time_ns.Add(o.time_ns);
    allocations_between.Add(o.allocations_between);
    freed_by_other_thread += o.freed_by_other_thread;
    live_at_end += o.live_at_end;
  }
};

class LifetimeAnalyzer : public Analyzer {
 public:
  bool EventsInBatches() const override { return true; }
  void OnEvents(const format::EventSpan& events, const HeapChange* changes,
                const LiveHeap& heap) override;

  // The site's lifetimes (call after the pass); nullptr if it made no block.
  const SiteLifetimes* Of(uint32_t stack) const {
    return stack < sites_.size() ? sites_[stack].get() : nullptr;
  }
  // f(stack, const SiteLifetimes&) for every site that made a block.
  template <typename F>
  void ForEach(F&& f) const {
    for (size_t i = 0; i < sites_.size(); ++i) {
      if (sites_[i] != nullptr) f(static_cast<uint32_t>(i), *sites_[i]);
    }
  }
  // Every site's released blocks together.
  const SiteLifetimes& all() const { return all_; }

 private:
  void One(const format::Event& e, const HeapChange& c);
  struct Birth {
    uint64_t time_ns = 0;
    uint32_t thread = 0;
    uint32_t stack = 0;
  };
  SiteLifetimes& At(uint32_t stack);

  BlockMap<Birth> births_;  // live blocks, by block number
  std::vector<std::unique_ptr<SiteLifetimes>> sites_;
  SiteLifetimes all_;
  uint64_t last_made_ = 0;  // the highest block number made so far
};

// A site's lifetimes as the JSON report gives them (docs/DESIGN.md, SITE's
// "lifetimes"); null for nullptr.
nlohmann::json LifetimesJson(const SiteLifetimes* s);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_LIFETIMES_H_
