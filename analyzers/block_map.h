// BlockMap: the live blocks by block number (Event::block), for LiveHeap.
//
// Block numbers are handed out in order (the n-th block made is n), and most
// blocks die young. So a block starts in a nursery, a ring of kNursery slots
// indexed by number modulo its size: consecutive blocks sit in consecutive
// slots (no hashing, few cache misses). When the ring comes round to a slot
// whose block is still live, that block moves to a hash table
// (base::OpenTable) for the long-lived. Lookups try the ring slot, then the table. Any order of
// numbers is handled; sequential ones are the fast case.
// Memory: the ring (kNursery x 24 bytes) plus the table for older live blocks.
// Not thread-safe.
#ifndef HEAPREC_ANALYZERS_BLOCK_MAP_H_
#define HEAPREC_ANALYZERS_BLOCK_MAP_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/open_table.h"
#include "format/api.h"

namespace heaprec::analyzers {

struct LiveBlock {
  uint64_t size = 0;
  uint32_t stack = 0;
  format::Api api = format::Api::kMalloc;
};

class BlockMap {
 public:
  static constexpr size_t kNursery = size_t{1} << 16;

  BlockMap() : ring_(kNursery) {}

  // Inserts or replaces (id non-zero); returns the previous block through
  // *old (and true) if id was present.
  bool Put(uint64_t id, const LiveBlock& block, LiveBlock* old) {
    Slot& s = ring_[id & (kNursery - 1)];
    if (__builtin_expect(s.id == 0 && id > newest_in_old_, 1)) {  // a new block, a free slot
      s.id = id;
      s.block = block;
      ++in_ring_;
      return false;
    }
    return PutSlow(id, block, old);
  }
  // Removes id; its block through *out. False if absent.
  bool Take(uint64_t id, LiveBlock* out) {
    Slot& s = ring_[id & (kNursery - 1)];
    if (__builtin_expect(s.id == id && id != 0, 1)) {  // a young block
      *out = s.block;
      s.id = 0;
      --in_ring_;
      return true;
    }
    return id <= newest_in_old_ && old_.Take(id, out);
  }
  size_t size() const { return in_ring_ + old_.size(); }

  template <typename F>  // f(uint64_t id, const LiveBlock&)
  void ForEach(F&& f) const {
    for (const Slot& s : ring_) {
      if (s.id != 0) f(s.id, s.block);
    }
    old_.ForEach(f);
  }

 private:
  struct Slot {
    uint64_t id = 0;  // 0 = empty
    LiveBlock block;
  };

  bool PutSlow(uint64_t id, const LiveBlock& block, LiveBlock* old);

  std::vector<Slot> ring_;
  size_t in_ring_ = 0;
  base::OpenTable<LiveBlock> old_;
  uint64_t newest_in_old_ = 0;  // the highest number ever moved to old_
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_BLOCK_MAP_H_
