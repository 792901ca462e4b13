// BlockNumbers: an open-addressing map (linear probing, backward-shift
// deletion) from live address to block number.
#include "format/block_numbers.h"

namespace heaprec::format {
namespace {

size_t HashOf(uint64_t address, size_t mask) {
  return static_cast<size_t>((address * 0x9E3779B97F4A7C15ull) >> 20) & mask;
}

}  // namespace

size_t BlockNumbers::Find(uint64_t address) const {
  const size_t mask = slots_.size() - 1;
  size_t i = HashOf(address, mask);
  while (slots_[i].address != 0 && slots_[i].address != address) i = (i + 1) & mask;
  return i;
}

void BlockNumbers::Grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  live_ = 0;
  for (const Slot& s : old) {
    if (s.address != 0) Insert(s.address, s.block);
  }
}

void BlockNumbers::Insert(uint64_t address, uint64_t block) {
  if ((live_ + 1) * 4 > slots_.size() * 3) Grow();
  Slot& s = slots_[Find(address)];
  if (s.address == 0) ++live_;
  s = {address, block};
}

uint64_t BlockNumbers::Take(uint64_t address) {
  const size_t mask = slots_.size() - 1;
  size_t i = Find(address);
  if (slots_[i].address == 0) return 0;
  const uint64_t block = slots_[i].block;
  // Backward shift: move later entries of the probe run into the hole.
  for (size_t j = (i + 1) & mask; slots_[j].address != 0; j = (j + 1) & mask) {
    const size_t home = HashOf(slots_[j].address, mask);
    // Move j to i if its home is not in the cyclic range (i, j].
    if (((j - home) & mask) >= ((j - i) & mask)) {
      slots_[i] = slots_[j];
      i = j;
    }
  }
  slots_[i] = {0, 0};
  --live_;
  return block;
}

void BlockNumbers::Assign(Event* e) {
  e->block = 0;
  e->old_block = 0;
  switch (e->kind()) {
    case EventKind::kAlloc:
      if (e->address != 0) {
        e->block = ++made_;
        Insert(e->address, e->block);
      }
      return;
    case EventKind::kFree:
      if (e->address != 0) e->block = Take(e->address);
      return;
    case EventKind::kRealloc:
      if (e->old_address != 0) {
        const size_t i = Find(e->old_address);
        e->old_block = slots_[i].block;  // 0 when the slot is empty
      }
      if (e->address != 0) {
        if (e->old_block != 0) Take(e->old_address);
        e->block = ++made_;
        Insert(e->address, e->block);
      } else if (e->size == 0 && e->old_block != 0) {
        Take(e->old_address);
      }
      return;
    case EventKind::kInvalid:
      return;
  }
}

}  // namespace heaprec::format
