// SampledSet: the addresses of the live sampled blocks (heaprec
// --sample-rate; sampler.h), so that a free records only the blocks whose
// allocation was recorded. Insert after the real allocation returns, Take
// (find and erase) before the real free.
//
// Lock-free, in mmap'd memory (no heap). Open addressing in buckets of 8
// slots, one cache line each: an address lives in the one bucket its hash
// names, at the first level whose bucket has room. Levels are 4x larger each
// (4096 buckets = 32K slots first, up to 4 levels = 2.8M slots), reserved at
// once with MAP_NORESERVE; a lookup scans the bucket of each level in use,
// so the common case (a free of a block that was not sampled, in a process
// with fewer than some 10^4 live samples) reads one cache line. Erasing
// zeroes the slot (no tombstones: a lookup scans the whole bucket, not up to
// an empty slot). An address that finds no room at any level is not kept
// (Insert returns false; the recorder counts it, and its free is not
// recorded).
//
// Per address, Insert, Take and Contains are ordered by the program itself
// (a block is freed after it was allocated, on whatever thread), which
// orders the relaxed atomics they use; different addresses never touch the
// same slot at once but through a compare-and-swap on an empty one.
// Async-signal-safe; fork: the child keeps a copy (same addresses, same
// blocks). Called by the hooks (hook_scope.h, hooks_malloc.cc).
#ifndef HEAPREC_RECORDER_PRELOAD_SAMPLED_SET_H_
#define HEAPREC_RECORDER_PRELOAD_SAMPLED_SET_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace heaprec::recorder::preload {

class SampledSet {
 public:
  static constexpr int kLevels = 4;
  static constexpr int kFirstBucketBits = 12;
  static constexpr int kSlotsPerBucket = 8;
  static_assert(kLevels == 4, "BucketOf's tables have one entry per level");

  // Memory for all levels (bytes), for the caller's mmap.
  static constexpr size_t BytesNeeded() {
    size_t slots = 0;
    for (int level = 0; level < kLevels; ++level) slots += BucketsAt(level) * kSlotsPerBucket;
    return slots * sizeof(uint64_t);
  }

  // memory: BytesNeeded() zeroed bytes (mmap'd), 64-byte aligned; not owned.
  void Attach(void* memory) { slots_ = static_cast<std::atomic<uint64_t>*>(memory); }
  bool attached() const { return slots_ != nullptr; }

  // Adds a non-null address not in the set; false if no bucket had room.
  bool Insert(uintptr_t address);
  // Removes address if present; true if it was. Inline: every free asks.
  bool Take(uintptr_t address) {
    std::atomic<uint64_t>* slot = Find(address);
    if (slot == nullptr) return false;
    slot->store(0, std::memory_order_relaxed);
    return true;
  }
  bool Contains(uintptr_t address) const { return Find(address) != nullptr; }
  // Levels that may hold addresses (1 until a first-level bucket overflows).
  int levels_in_use() const { return levels_in_use_.load(std::memory_order_relaxed); }

 private:
  static constexpr size_t BucketsAt(int level) {
    return size_t{1} << (kFirstBucketBits + 2 * level);
  }
  // The first bucket of each level, counted from the first of level 0.
  static constexpr size_t FirstBucketOf(int level) {
    size_t first = 0;
    for (int l = 0; l < level; ++l) first += BucketsAt(l);
    return first;
  }
  // The first slot of address's bucket at level; one odd multiplier per
  // level, so that addresses crowded in one bucket spread over the next.
  std::atomic<uint64_t>* BucketOf(uintptr_t address, int level) const {
    static constexpr uint64_t kMultipliers[kLevels] = {
        0x9e3779b97f4a7c15ULL, 0xc2b2ae3d27d4eb4fULL, 0x165667b19e3779f9ULL, 0xd6e8feb86659fd93ULL};
    static constexpr size_t kFirst[kLevels] = {FirstBucketOf(0), FirstBucketOf(1), FirstBucketOf(2),
                                               FirstBucketOf(3)};
    const uint64_t key = static_cast<uint64_t>(address) ^ (static_cast<uint64_t>(address) >> 29);
    const uint64_t bucket = (key * kMultipliers[level]) >> (64 - kFirstBucketBits - 2 * level);
    return slots_ + (kFirst[level] + bucket) * kSlotsPerBucket;
  }
  // The slot holding address, or nullptr.
  std::atomic<uint64_t>* Find(uintptr_t address) const {
    const auto key = static_cast<uint64_t>(address);
    const int levels = levels_in_use();
    for (int level = 0; level < levels; ++level) {
      std::atomic<uint64_t>* bucket = BucketOf(address, level);
      for (int i = 0; i < kSlotsPerBucket; ++i) {
        if (bucket[i].load(std::memory_order_relaxed) == key) return bucket + i;
      }
    }
    return nullptr;
  }

  std::atomic<uint64_t>* slots_ = nullptr;
  std::atomic<int> levels_in_use_{1};
};

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_SAMPLED_SET_H_
