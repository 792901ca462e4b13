// OpenTable<V>: a hash map from non-zero 64-bit keys to small values, open
// addressing with linear probing and backward-shift deletion, entries inline
// (no allocation per entry). Fibonacci hashing of the key, so aligned
// addresses and consecutive numbers spread alike. Grows at 3/4 load.
// Used for live addresses (BlockNumbers) and long-lived blocks (analyzers/
// block_map.h). Not thread-safe; header-only.
#ifndef HEAPREC_BASE_OPEN_TABLE_H_
#define HEAPREC_BASE_OPEN_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/large_buffers.h"

namespace heaprec::base {

// Asks for the cache line at p. Not __builtin_prefetch: GCC 12 (-O2) counts
// a function whose only effect is that builtin as having none, and drops
// calls of it that it has not inlined by then (a prefetch behind a test in a
// caller, as BlockNumbers' and ChunkBuilder's): the launcher's hint 8
// records ahead compiled to nothing. An asm volatile stays.
inline void PrefetchLine(const void* p) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}

// kGroupedBits >= 0 places keys that differ only in bits kGroupedBits ..
// kGroupedBits+3 in one group of 16 slots (4 cache lines of 16-byte slots),
// at the slot those bits name, and the groups by the Fibonacci hash of the
// bits above: blocks allocated one after another (nearby addresses) then
// share lines, so a run of them costs one miss per line instead of one per
// block (10M live 1-byte blocks: the table outgrows every cache). For
// 16-byte-aligned addresses, kGroupedBits = 4; for block numbers, 0
// (BlockMap: survivors born together share lines). -1: every key hashed
// alone.
template <typename V, int kGroupedBits = -1>
class OpenTable {
 public:
  // Inserts or replaces key (non-zero); the previous value through *old (and
  // true) if key was present.
  bool Put(uint64_t key, const V& value, V* old) {
    if ((live_ + 1) * 4 > slots_.size() * 3) Grow();
    Slot& s = slots_[Find(key)];
    const bool present = s.key != 0;
    if (present) {
      *old = s.value;
    } else {
      ++live_;
    }
    s.key = key;
    s.value = value;
    return present;
  }

  // Asks for the line where a lookup of key starts (a hint; no effect on
  // the contents): a caller that knows its next keys hides the miss.
  void Prefetch(uint64_t key) const { PrefetchLine(&slots_[Home(key)]); }

  // The value of key, or nullptr.
  const V* Get(uint64_t key) const {
    const Slot& s = slots_[Find(key)];
    return s.key == 0 ? nullptr : &s.value;
  }
  V* GetMutable(uint64_t key) { return const_cast<V*>(Get(key)); }

  // Removes key; its value through *out. False if absent.
  bool Take(uint64_t key, V* out) {
    const size_t mask = slots_.size() - 1;
    size_t i = Find(key);
    if (slots_[i].key == 0) return false;
    *out = slots_[i].value;
    // Backward shift: move later entries of the probe run into the hole.
    for (size_t j = (i + 1) & mask; slots_[j].key != 0; j = (j + 1) & mask) {
      const size_t home = Home(slots_[j].key);
      if (((j - home) & mask) >= ((j - i) & mask)) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i] = Slot{};
    --live_;
    return true;
  }

  size_t size() const { return live_; }
  // Bytes of the slots (what a lookup may touch).
  size_t table_bytes() const { return slots_.size() * sizeof(Slot); }

  template <typename F>  // f(uint64_t key, const V&)
  void ForEach(F&& f) const {
    for (const Slot& s : slots_) {
      if (s.key != 0) f(s.key, s.value);
    }
  }

 private:
  struct Slot {
    uint64_t key = 0;  // 0 = empty
    V value{};
  };

  size_t Home(uint64_t key) const {
    if constexpr (kGroupedBits < 0) {
      return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
    } else {
      // The hash's own low 4 bits turn the offset in the group: keys with
      // the same low bits (page-aligned blocks) start apart, as if hashed.
      const uint64_t h = ((key >> (kGroupedBits + 4)) * 0x9E3779B97F4A7C15ull) >> shift_;
      return static_cast<size_t>((h & ~uint64_t{15}) | ((h + (key >> kGroupedBits)) & 15));
    }
  }
  // key's slot, or the empty slot that ends its probe run.
  size_t Find(uint64_t key) const {
    const size_t mask = slots_.size() - 1;
    size_t i = Home(key);
    while (slots_[i].key != 0 && slots_[i].key != key) i = (i + 1) & mask;
    return i;
  }
  void Grow() {
    std::vector<Slot, LargeBufferAllocator<Slot>> old(slots_.size() * 2);
    old.swap(slots_);
    --shift_;
    for (const Slot& s : old) {
      if (s.key != 0) slots_[Find(s.key)] = s;
    }
  }

  unsigned shift_ = 64 - 10;  // 64 - log2(slot count)
  // Grows to tens of MiB with a program's live blocks: huge pages.
  std::vector<Slot, LargeBufferAllocator<Slot>> slots_ =
      std::vector<Slot, LargeBufferAllocator<Slot>>(1024);
  size_t live_ = 0;
};

}  // namespace heaprec::base

#endif  // HEAPREC_BASE_OPEN_TABLE_H_
