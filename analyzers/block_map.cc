// Live blocks in an open-addressing table (block_map.h).
#include "analyzers/block_map.h"

namespace heaprec::analyzers {

size_t BlockMap::Find(uint64_t id) const {
  const size_t mask = slots_.size() - 1;
  size_t i = Home(id);
  while (slots_[i].id != 0 && slots_[i].id != id) i = (i + 1) & mask;
  return i;
}

void BlockMap::Grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  --shift_;
  live_ = 0;
  for (const Slot& s : old) {
    if (s.id != 0) {
      Slot& d = slots_[Find(s.id)];
      d = s;
      ++live_;
    }
  }
}

bool BlockMap::Put(uint64_t id, const LiveBlock& block, LiveBlock* old) {
  if ((live_ + 1) * 4 > slots_.size() * 3) Grow();
  Slot& s = slots_[Find(id)];
  const bool present = s.id != 0;
  if (present) {
    *old = s.block;
  } else {
    ++live_;
  }
  s.id = id;
  s.block = block;
  return present;
}

bool BlockMap::Take(uint64_t id, LiveBlock* out) {
  const size_t mask = slots_.size() - 1;
  size_t i = Find(id);
  if (slots_[i].id == 0) return false;
  *out = slots_[i].block;
  // Backward shift: move later entries of the probe run into the hole.
  for (size_t j = (i + 1) & mask; slots_[j].id != 0; j = (j + 1) & mask) {
    const size_t home = Home(slots_[j].id);
    if (((j - home) & mask) >= ((j - i) & mask)) {
      slots_[i] = slots_[j];
      i = j;
    }
  }
  slots_[i] = Slot{};
  --live_;
  return true;
}

}  // namespace heaprec::analyzers
