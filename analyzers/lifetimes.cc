// Block lifetimes per site (lifetimes.h).
#include "analyzers/lifetimes.h"

#include <cmath>

namespace heaprec::analyzers {

uint64_t Log2Histogram::Quantile(double q) const {
  if (total == 0) return 0;
  const auto want = static_cast<uint64_t>(std::ceil(q * static_cast<double>(total)));
  uint64_t seen = 0;
  for (int k = 0; k < kBuckets; ++k) {
    seen += counts[k];
    if (seen >= want && seen != 0) return TopOf(k);
  }
  return TopOf(kBuckets - 1);
}

SiteLifetimes& LifetimeAnalyzer::At(uint32_t stack) {
  if (stack >= sites_.size()) sites_.resize(stack + 1);
  if (sites_[stack] == nullptr) sites_[stack] = std::make_unique<SiteLifetimes>();
  return *sites_[stack];
}

__attribute__((always_inline)) inline void LifetimeAnalyzer::One(const format::Event& e,
                                                                 const HeapChange& c) {
  if (c.released != 0) {
    Birth b;
    if (births_.Take(c.released, &b)) {
      SiteLifetimes& s = At(b.stack);
      const uint64_t time = e.time_ns > b.time_ns ? e.time_ns - b.time_ns : 0;
      // The blocks made after this one and before this event.
      const uint64_t between = last_made_ > c.released ? last_made_ - c.released : 0;
      const bool other = e.thread != b.thread;
      for (SiteLifetimes* t : {&s, &all_}) {
        t->time_ns.Add(time);
        t->allocations_between.Add(between);
        t->freed_by_other_thread += other;
        --t->live_at_end;
      }
    }
  }
  if (c.made != 0) {
    Birth b{e.time_ns, e.thread, c.made_block.stack}, old;
    births_.Put(c.made, b, &old);
    if (c.made > last_made_) last_made_ = c.made;
    ++At(b.stack).live_at_end;
    ++all_.live_at_end;
  }
}

void LifetimeAnalyzer::OnEvents(const format::EventSpan& events, const HeapChange* changes,
                                const LiveHeap&) {
  format::ForEachEvent(
      events, [&](const format::Event& e, size_t i)
                  __attribute__((always_inline)) { One(e, changes[i]); });
}

nlohmann::json LifetimesJson(const SiteLifetimes* s) {
  using nlohmann::json;
  if (s == nullptr) return nullptr;
  auto distribution = [](const Log2Histogram& h) {
    json buckets = json::array();
    for (int k = 0; k < Log2Histogram::kBuckets; ++k) {
      if (h.counts[k] != 0) buckets.push_back({Log2Histogram::TopOf(k), h.counts[k]});
    }
    return json{{"mean", h.Mean()},        {"p50", h.Quantile(0.5)}, {"p90", h.Quantile(0.9)},
                {"p99", h.Quantile(0.99)}, {"max", h.Max()},         {"log2_buckets", buckets}};
  };
  const uint64_t freed = s->time_ns.total;
  return {{"freed", freed},
          {"live_at_end", s->live_at_end},
          {"freed_by_other_thread", s->freed_by_other_thread},
          {"other_thread_share",
           freed == 0 ? 0.0 : static_cast<double>(s->freed_by_other_thread) / freed},
          {"total_time_ns", static_cast<uint64_t>(s->time_ns.sum)},
          {"time_ns", distribution(s->time_ns)},
          {"allocations_between", distribution(s->allocations_between)}};
}

}  // namespace heaprec::analyzers
