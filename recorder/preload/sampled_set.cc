// The set of live sampled addresses (sampled_set.h): insertion, the one
// operation that is not inline.
#include "recorder/preload/sampled_set.h"

namespace heaprec::recorder::preload {

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
      if (bucket[i].compare_exchange_strong(empty, key, std::memory_order_relaxed)) return true;
    }
  }
  return false;
}

}  // namespace heaprec::recorder::preload
