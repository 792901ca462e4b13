// The set of live sampled addresses (sampled_set.h).
#include "recorder/preload/sampled_set.h"

namespace heaprec::recorder::preload {

namespace {

// One odd multiplier per level, so that addresses crowded in one bucket of a
// level spread over the next.
constexpr uint64_t kMultipliers[SampledSet::kLevels] = {
    0x9e3779b97f4a7c15ULL, 0xc2b2ae3d27d4eb4fULL, 0x165667b19e3779f9ULL, 0xd6e8feb86659fd93ULL};

}  // namespace

std::atomic<uint64_t>* SampledSet::BucketOf(uintptr_t address, int level) const {
  size_t first = 0;
  for (int l = 0; l < level; ++l) first += BucketsAt(l);
  const uint64_t key = static_cast<uint64_t>(address) ^ (static_cast<uint64_t>(address) >> 29);
  const int bits = kFirstBucketBits + 2 * level;
  const uint64_t bucket = (key * kMultipliers[level]) >> (64 - bits);
  return slots_ + (first + bucket) * kSlotsPerBucket;
}

bool SampledSet::Insert(uintptr_t address) {
  const auto key = static_cast<uint64_t>(address);
  for (int level = 0; level < kLevels; ++level) {
    std::atomic<uint64_t>* bucket = BucketOf(address, level);
    for (int i = 0; i < kSlotsPerBucket; ++i) {
      if (bucket[i].load(std::memory_order_relaxed) != 0) continue;
      // Lookups of this address look as deep as this level before the
      // address can be freed (the program orders its free after this).
      int in_use = levels_in_use_.load(std::memory_order_relaxed);
      while (in_use < level + 1 &&
             !levels_in_use_.compare_exchange_weak(in_use, level + 1, std::memory_order_relaxed)) {
      }
      uint64_t empty = 0;
      if (bucket[i].compare_exchange_strong(empty, key, std::memory_order_relaxed)) {
        filter_[FilterIndex(address)].fetch_add(1, std::memory_order_relaxed);
        return true;
      }
    }
  }
  return false;
}

bool SampledSet::Take(uintptr_t address) {
  if (!MayContain(address)) return false;
  const auto key = static_cast<uint64_t>(address);
  const int levels = levels_in_use();
  for (int level = 0; level < levels; ++level) {
    std::atomic<uint64_t>* bucket = BucketOf(address, level);
    for (int i = 0; i < kSlotsPerBucket; ++i) {
      if (bucket[i].load(std::memory_order_relaxed) == key) {
        bucket[i].store(0, std::memory_order_relaxed);
        filter_[FilterIndex(address)].fetch_sub(1, std::memory_order_relaxed);
        return true;
      }
    }
  }
  return false;
}

bool SampledSet::Contains(uintptr_t address) const {
  if (!MayContain(address)) return false;
  const auto key = static_cast<uint64_t>(address);
  const int levels = levels_in_use();
  for (int level = 0; level < levels; ++level) {
    const std::atomic<uint64_t>* bucket = BucketOf(address, level);
    for (int i = 0; i < kSlotsPerBucket; ++i) {
      if (bucket[i].load(std::memory_order_relaxed) == key) return true;
    }
  }
  return false;
}

}  // namespace heaprec::recorder::preload
