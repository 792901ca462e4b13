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
  // Removes address if present; true if it was.
  bool Take(uintptr_t address);
  bool Contains(uintptr_t address) const;
  // Levels that may hold addresses (1 until a first-level bucket overflows).
  int levels_in_use() const { return levels_in_use_.load(std::memory_order_relaxed); }

  // False if address is certainly not in the set: a counter per hash of the
  // addresses kept (a 16 KiB table, mostly zeros while the samples are
  // fewer than its 8192 counters), read with one load and no call: the free
  // of a block that was not sampled (nearly every free) stops here.
  bool MayContain(uintptr_t address) const {
    return filter_[FilterIndex(address)].load(std::memory_order_relaxed) != 0;
  }
  // Empties the filter (with the slots, for a new recording: attach.cc).
  void ClearFilter() {
    for (auto& c : filter_) c.store(0, std::memory_order_relaxed);
  }

 private:
  static constexpr size_t BucketsAt(int level) {
    return size_t{1} << (kFirstBucketBits + 2 * level);
  }
  // The first slot of address's bucket at level.
  std::atomic<uint64_t>* BucketOf(uintptr_t address, int level) const;

  static constexpr int kFilterBits = 13;
  static size_t FilterIndex(uintptr_t address) {
    const uint64_t key = static_cast<uint64_t>(address) ^ (static_cast<uint64_t>(address) >> 29);
    return static_cast<size_t>((key * 0x9e3779b97f4a7c15ULL) >> (64 - kFilterBits));
  }

  std::atomic<uint64_t>* slots_ = nullptr;
  std::atomic<int> levels_in_use_{1};
  // Addresses kept per filter index (they never near 65535 in one).
  std::atomic<uint16_t> filter_[size_t{1} << kFilterBits] = {};
};

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_SAMPLED_SET_H_
