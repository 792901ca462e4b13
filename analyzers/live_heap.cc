// LiveHeap: event kinds applied to the live-block map (live_heap.h).
#include "analyzers/live_heap.h"

namespace heaprec::analyzers {

void LiveHeap::Add(uint64_t address, const LiveBlock& block) {
  auto [it, inserted] = blocks_.try_emplace(address, block);
  if (!inserted) {  // a free we never saw (e.g. before recording began)
    live_bytes_ -= it->second.size;
    it->second = block;
  }
  live_bytes_ += block.size;
}

void LiveHeap::Remove(uint64_t address) {
  const auto it = blocks_.find(address);
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
      if (e.address != 0) Add(e.address, {e.size, e.stack, e.api});
      return;
    case format::EventKind::kFree:
      if (e.address != 0) Remove(e.address);
      return;
    case format::EventKind::kRealloc:
      if (e.old_address != 0) {
        if (e.address == 0 && e.size > 0) return;  // failed: the old block stays
        Remove(e.old_address);
      }
      if (e.address != 0) Add(e.address, {e.size, e.stack, e.api});
      return;
    case format::EventKind::kInvalid:
      return;
  }
}

}  // namespace heaprec::analyzers
