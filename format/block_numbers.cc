// BlockNumbers: address -> block number (live or released) in an OpenTable.
#include "format/block_numbers.h"

#include <utility>

namespace heaprec::format {

void BlockNumbers::Make(uint64_t address, uint64_t block) {
  uint64_t old;
  if (!table_.Put(address, block, &old)) {
    ++live_count_;
  } else if (old & kFreed) {
    --freed_count_;
    ++live_count_;
  }  // else: a damaged trace making a live address again; it is replaced
}

void BlockNumbers::Release(uint64_t address, uint64_t block) {
  uint64_t old;
  table_.Put(address, block | kFreed, &old);
  --live_count_;
  if (++freed_count_ <= kFreedSlack + 4 * live_count_) return;
  OpenTable<uint64_t> live;
  table_.ForEach([&](uint64_t a, uint64_t b) {
    if ((b & kFreed) == 0) live.Put(a, b, &old);
  });
  table_ = std::move(live);
  freed_count_ = 0;
}

void BlockNumbers::Assign(Event* e) {
  e->block = 0;
  e->old_block = 0;
  switch (e->kind()) {
    case EventKind::kAlloc:
      if (e->address != 0) {
        e->block = ++made_;
        Make(e->address, e->block);
      }
      return;
    case EventKind::kFree: {
      const uint64_t* b = e->address == 0 ? nullptr : table_.Get(e->address);
      if (b == nullptr) return;
      if (*b & kFreed) {
        e->block = *b & ~kFreed;  // released before: a double free
        return;
      }
      e->block = *b;
      Release(e->address, e->block);
      return;
    }
    case EventKind::kRealloc: {
      // Only a live block counts as passed in (a released one is unknown).
      const uint64_t* b = e->old_address == 0 ? nullptr : table_.Get(e->old_address);
      e->old_block = b == nullptr || (*b & kFreed) ? 0 : *b;
      if (e->address != 0) {
        if (e->old_block != 0) Release(e->old_address, e->old_block);
        e->block = ++made_;
        Make(e->address, e->block);
      } else if (e->size == 0 && e->old_block != 0) {
        Release(e->old_address, e->old_block);
      }
      return;
    }
    case EventKind::kInvalid:
      return;
  }
}

}  // namespace heaprec::format
