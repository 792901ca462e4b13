// BlockMap<V>: a value per live block, by block number (Event::block): what
// LiveHeap keeps of each live block (LiveBlock), and what LifetimeAnalyzer
// keeps of its birth.
//
// Block numbers are dense over the whole trace (the n-th block made is n,
// format/FORMAT.md "Blocks"; never reused), not over the live blocks: a
// vector indexed by number would grow with every block ever made. But most
// blocks die young. So a block starts in a nursery, a ring of kNursery slots
// indexed by number modulo its size: a vector indexed by the number within
// the last kNursery made, consecutive blocks in consecutive slots (no
// hashing, few cache misses). When the ring comes round to a slot whose
// block is still live, that block moves to a hash table (base::OpenTable)
// for the long-lived. Lookups try the ring slot, then the table. Any order
// of numbers is handled; sequential ones are the fast case.
// The table keeps 16 consecutive numbers in one group of slots (OpenTable's
// kGroupedBits 0): blocks leave the ring in number order, and survivors born
// together share lines. Hashing each number alone made a miss of nearly
// every move and take once the table outgrew the caches (python3.11-dbg's
// trace, 130,000 live blocks: 477 -> 366 ms CPU).
// Memory: the ring (kNursery slots of a number and a V) plus the table for
// older live blocks. Not thread-safe.
#ifndef HEAPREC_ANALYZERS_BLOCK_MAP_H_
#define HEAPREC_ANALYZERS_BLOCK_MAP_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/open_table.h"
#include "base/zeroed_array.h"
#include "format/api.h"

namespace heaprec::analyzers {

struct LiveBlock {
  uint64_t size = 0;
  uint32_t stack = 0;
  format::Api api = format::Api::kMalloc;
  // Named, so that a copy moves 16 whole bytes: a 13-byte copy was two
  // overlapping 8-byte moves, and a load soon after stalled on them.
  uint8_t unused[3] = {0, 0, 0};
};

template <typename V = LiveBlock>
class BlockMap {
 public:
  static constexpr size_t kNursery = size_t{1} << 16;

  BlockMap() : ring_(kNursery) {}  // all zeros: every slot empty

  // Inserts or replaces (id non-zero); returns the previous value through
  // *old (and true) if id was present.
  bool Put(uint64_t id, const V& value, V* old) {
    Slot& s = ring_[id & (kNursery - 1)];
    if (__builtin_expect(s.id == 0 && id > newest_in_old_, 1)) {  // a new block, a free slot
      s.id = id;
      s.value = value;
      ++in_ring_;
      return false;
    }
    return PutSlow(id, value, old);
  }
  // Put for a caller that writes the value itself, field by field (a value
  // built first and then copied went through memory and stalled the copy):
  // where id's value goes, or nullptr when id may be present already; then
  // EmplaceSlow, as Put, says whether it was and gives its old value.
  V* Emplace(uint64_t id) {
    Slot& s = ring_[id & (kNursery - 1)];
    if (__builtin_expect(s.id == 0 && id > newest_in_old_, 1)) {  // a new block, a free slot
      s.id = id;
      ++in_ring_;
      return &s.value;
    }
    return nullptr;
  }
  V* EmplaceSlow(uint64_t id, bool* existed, V* old) {
    *existed = PutSlow(id, V{}, old);
    Slot& s = ring_[id & (kNursery - 1)];
    return s.id == id ? &s.value : old_.GetMutable(id);
  }
  // Removes id; its value through *out. False if absent.
  bool Take(uint64_t id, V* out) {
    Slot& s = ring_[id & (kNursery - 1)];
    if (__builtin_expect(s.id == id && id != 0, 1)) {  // a young block
      *out = s.value;
      s.id = 0;
      --in_ring_;
      return true;
    }
    return id <= newest_in_old_ && old_.Take(id, out);
  }
  size_t size() const { return in_ring_ + old_.size(); }
  // A hint: id's ring slot will be wanted soon (the ring is larger than
  // the caches, and frees come in no order).
  void Prefetch(uint64_t id) const { __builtin_prefetch(&ring_[id & (kNursery - 1)], 1); }

  template <typename F>  // f(uint64_t id, const V&)
  void ForEach(F&& f) const {
    for (const Slot& s : ring_) {
      if (s.id != 0) f(s.id, s.value);
    }
    old_.ForEach(f);
  }

 private:
  struct Slot {
    uint64_t id = 0;  // 0 = empty
    V value;
  };

  // Put when the ring slot is taken, or id may be in the table.
  bool PutSlow(uint64_t id, const V& value, V* old) {
    // A number already in the table (only a damaged or hand-made stream
    // repeats one) is replaced there.
    if (id <= newest_in_old_ && old_.size() != 0 && old_.Take(id, old)) {
      old_.Put(id, value, old);
      return true;
    }
    Slot& s = ring_[id & (kNursery - 1)];
    if (s.id == id) {
      *old = s.value;
      s.value = value;
      return true;
    }
    if (s.id > id) {  // the slot holds a newer block: this one is old already
      newest_in_old_ = newest_in_old_ > id ? newest_in_old_ : id;
      return old_.Put(id, value, old);
    }
    if (s.id != 0) {  // the ring came round to a live block: it is long-lived
      V unused;
      old_.Put(s.id, s.value, &unused);
      newest_in_old_ = newest_in_old_ > s.id ? newest_in_old_ : s.id;
    } else {
      ++in_ring_;
    }
    s.id = id;
    s.value = value;
    return false;
  }

  base::ZeroedArray<Slot> ring_;  // only a slot's id is read before it is written
  size_t in_ring_ = 0;
  base::OpenTable<V, 0> old_;   // numbers grouped by 16 (above)
  uint64_t newest_in_old_ = 0;  // the highest number ever moved to old_
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_BLOCK_MAP_H_
