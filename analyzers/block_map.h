// BlockMap: live blocks by block number (Event::block), an open-addressing
// hash table (linear probing, backward-shift deletion) with the blocks
// inline: no allocation per block, which a node-based map spends most of a
// replay's time on. Keys are non-zero. Memory: about 32 bytes per slot, at
// most 4/3 slots per live block after growth (load factor <= 3/4).
// Not thread-safe.
#ifndef HEAPREC_ANALYZERS_BLOCK_MAP_H_
#define HEAPREC_ANALYZERS_BLOCK_MAP_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "format/api.h"

namespace heaprec::analyzers {

struct LiveBlock {
  uint64_t size = 0;
  uint32_t stack = 0;
  format::Api api = format::Api::kMalloc;
};

class BlockMap {
 public:
  // Inserts or replaces; returns the previous block through *old (and true)
  // if id was present.
  bool Put(uint64_t id, const LiveBlock& block, LiveBlock* old);
  // Removes id; its block through *out. False if absent.
  bool Take(uint64_t id, LiveBlock* out);
  size_t size() const { return live_; }

  template <typename F>  // f(uint64_t id, const LiveBlock&)
  void ForEach(F&& f) const {
    for (const Slot& s : slots_) {
      if (s.id != 0) f(s.id, s.block);
    }
  }

 private:
  struct Slot {
    uint64_t id = 0;  // 0 = empty
    LiveBlock block;
  };
  // Fibonacci hashing. (The identity would keep recent blocks in
  // neighbouring slots, but consecutive long-lived blocks then form runs that
  // every later insert probes through: 30x slower on a Python trace.)
  size_t Home(uint64_t id) const {
    return static_cast<size_t>((id * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  size_t Find(uint64_t id) const;  // id's slot, or the empty slot ending its run
  void Grow();

  unsigned shift_ = 64 - 10;  // log2 of the slot count is 64 - shift_
  std::vector<Slot> slots_ = std::vector<Slot>(1024);
  size_t live_ = 0;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_BLOCK_MAP_H_
