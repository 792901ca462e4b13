// LiveHeap: event kinds applied to the live-block map (live_heap.h).
#include "analyzers/live_heap.h"

namespace heaprec::analyzers {

void LiveHeap::Add(uint64_t id, const LiveBlock& block) {
  auto [it, inserted] = blocks_.try_emplace(id, block);
  if (!inserted) {  // a damaged trace naming a block twice
    live_bytes_ -= it->second.size;
    it->second = block;
  }
  live_bytes_ += block.size;
}

void LiveHeap::Remove(uint64_t id) {
  if (id == 0) {  // a block the trace never saw made
    ++unknown_frees_;
    return;
  }
  const auto it = blocks_.find(id);
  if (it == blocks_.end()) {
    ++unknown_frees_;
    return;
  }
  live_bytes_ -= it->second.size;
  blocks_.erase(it);
}

void LiveHeap::Apply(const format::Event& e) {
  switch (e.kind()) {
    case format::EventKind::kAlloc:
      if (e.block != 0) Add(e.block, {e.size, e.stack, e.api});
      return;
    case format::EventKind::kFree:
      if (e.block != 0 || e.address != 0) Remove(e.block);  // free(NULL) is nothing
      return;
    case format::EventKind::kRealloc:
      if (e.old_block != 0 || e.old_address != 0) {
        if (e.block == 0 && e.size > 0) return;  // failed: the old block stays
        Remove(e.old_block);
      }
      if (e.block != 0) Add(e.block, {e.size, e.stack, e.api});
      return;
    case format::EventKind::kInvalid:
      return;
  }
}

}  // namespace heaprec::analyzers
