// Live blocks: a nursery ring in front of a hash table (block_map.h).
#include "analyzers/block_map.h"

namespace heaprec::analyzers {

bool BlockMap::PutSlow(uint64_t id, const LiveBlock& block, LiveBlock* old) {
  // A number already in the table (only a damaged or hand-made stream repeats
  // one) is replaced there.
  if (id <= newest_in_old_ && old_.size() != 0 && old_.Take(id, old)) {
    old_.Put(id, block, old);
    return true;
  }
  Slot& s = ring_[id & (kNursery - 1)];
  if (s.id == id) {
    *old = s.block;
    s.block = block;
    return true;
  }
  if (s.id > id) {  // the slot holds a newer block: this one is old already
    newest_in_old_ = newest_in_old_ > id ? newest_in_old_ : id;
    return old_.Put(id, block, old);
  }
  if (s.id != 0) {  // the ring came round to a live block: it is long-lived
    LiveBlock unused;
    old_.Put(s.id, s.block, &unused);
    newest_in_old_ = newest_in_old_ > s.id ? newest_in_old_ : s.id;
  } else {
    ++in_ring_;
  }
  s.id = id;
  s.block = block;
  return false;
}

}  // namespace heaprec::analyzers
