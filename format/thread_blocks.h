// ThreadBlocks: for each thread, the block numbers of the last kWindow
// blocks it made, numbered per thread from 1 (format 3 block refs; see
// format/FORMAT.md, "Blocks").
//
// Format 3 names a freed block by the thread that made it and its place
// among that thread's blocks, not only by its distance among all blocks: a
// thread's own frees then read the same however the threads interleave.
// Writer (ChunkBuilder) and reader (ChunkDecoder) keep the same ThreadBlocks,
// fed the same events in seq order, so that both agree on what a ref can name:
// a thread's idx-th block while it is among the thread's last kWindow.
//
// Memory: up to kWindow block numbers (32 KiB) per thread that made that
// many, allocated as the thread makes them. Not thread-safe.
#ifndef HEAPREC_FORMAT_THREAD_BLOCKS_H_
#define HEAPREC_FORMAT_THREAD_BLOCKS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace heaprec::format {

class ThreadBlocks {
 public:
  static constexpr uint64_t kWindow = 4096;  // a power of two

  // keep_blocks = false: counts only (a writer needs no block numbers back;
  // Block() then answers 0).
  explicit ThreadBlocks(bool keep_blocks = true) : keep_blocks_(keep_blocks) {}

  // Thread t made block b (its count goes up by one). Inline: once a
  // thread's ring is whole, a store and an increment.
  __attribute__((always_inline)) void Made(uint32_t t, uint64_t b) {
    if (__builtin_expect(t < dense_.size(), 1)) {
      Blocks& o = dense_[t];
      if (!keep_blocks_) {
        ++o.count;
        return;
      }
      if (__builtin_expect(o.ring.size() == kWindow, 1)) {
        o.ring[o.count++ & (kWindow - 1)] = b;
        return;
      }
    }
    MadeSlow(t, b);
  }
  // The block number of thread t's d-th most recent block (d from 1: its
  // last), or 0 if t made fewer or d is beyond kWindow: Block(t, count(t) -
  // d + 1) in one lookup. The ring holds at least min(count, kWindow).
  __attribute__((always_inline)) uint64_t Recent(uint32_t t, uint64_t d) const {
    const Blocks* o = Find(t);
    if (o == nullptr || d == 0 || d > o->count || d > o->ring.size()) return 0;
    return o->ring[(o->count - d) & (o->ring.size() - 1)];
  }
  // Blocks thread t made so far.
  __attribute__((always_inline)) uint64_t count(uint32_t t) const {
    const Blocks* o = Find(t);
    return o == nullptr ? 0 : o->count;
  }
  // The block number of thread t's idx-th block (from 1), or 0 if t made
  // fewer or it is no longer among t's last kWindow.
  __attribute__((always_inline)) uint64_t Block(uint32_t t, uint64_t idx) const {
    const Blocks* o = Find(t);
    if (o == nullptr || o->ring.empty() || idx == 0 || idx > o->count ||
        o->count - idx >= kWindow) {
      return 0;
    }
    return o->ring[(idx - 1) & (o->ring.size() - 1)];
  }

  // For a reader's saved state (format/decoder_state.h): f(thread, count,
  // recent) for each thread that made a block, recent being its last
  // min(count, kWindow) blocks, oldest first (empty without keep_blocks).
  template <typename F>
  void ForEachThread(F&& f) const {
    std::vector<uint64_t> recent;
    auto one = [&](uint32_t t, const Blocks& o) {
      if (o.count == 0) return;
      recent.clear();
      const uint64_t kept = o.ring.empty() ? 0 : std::min<uint64_t>(o.count, kWindow);
      for (uint64_t idx = o.count - kept + 1; idx <= o.count; ++idx) {
        recent.push_back(o.ring[(idx - 1) & (o.ring.size() - 1)]);
      }
      f(t, o.count, recent);
    };
    for (size_t t = 0; t < dense_.size(); ++t) one(static_cast<uint32_t>(t), dense_[t]);
    for (const auto& [t, o] : sparse_) one(t, o);
  }
  // Sets thread t back to what ForEachThread gave (t made no block since
  // this ThreadBlocks was made).
  void Restore(uint32_t t, uint64_t count, const std::vector<uint64_t>& recent) {
    Blocks& o = Of(t);
    o.count = count;
    o.ring.clear();
    if (!keep_blocks_ || count == 0) return;
    size_t size = 8;  // as Made grows it: the smallest power of two from 8 that holds count
    while (size < count && size < kWindow) size *= 2;
    o.ring.assign(size, 0);
    const uint64_t first = count - std::min<uint64_t>(recent.size(), count) + 1;
    for (uint64_t idx = first; idx <= count; ++idx) {
      o.ring[(idx - 1) & (size - 1)] = recent[idx - first];
    }
  }

 private:
  struct Blocks {
    std::vector<uint64_t> ring;  // block of idx at (idx - 1) % size; size grows to kWindow
    uint64_t count = 0;
  };
  static constexpr uint32_t kDense = 1u << 16;  // thread indexes kept in a vector
  static void Grow(Blocks* o) { o->ring.resize(o->ring.empty() ? 8 : o->ring.size() * 2); }
  // Made for a thread beyond the dense ones, or whose ring still grows.
  __attribute__((noinline)) void MadeSlow(uint32_t t, uint64_t b) {
    Blocks& o = Of(t);
    if (keep_blocks_) {
      if (o.count == o.ring.size() && o.ring.size() < kWindow) Grow(&o);
      o.ring[o.count & (o.ring.size() - 1)] = b;
    }
    ++o.count;
  }
  Blocks& Of(uint32_t t) {
    if (t < kDense) {
      if (t >= dense_.size()) dense_.resize(static_cast<size_t>(t) + 1 + t / 2);
      return dense_[t];
    }
    return sparse_[t];
  }
  __attribute__((always_inline)) const Blocks* Find(uint32_t t) const {
    if (t < kDense) return t < dense_.size() ? &dense_[t] : nullptr;
    const auto it = sparse_.find(t);
    return it == sparse_.end() ? nullptr : &it->second;
  }
  bool keep_blocks_;
  std::vector<Blocks> dense_;
  std::unordered_map<uint32_t, Blocks> sparse_;  // other writers' thread numbers
};

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_THREAD_BLOCKS_H_
