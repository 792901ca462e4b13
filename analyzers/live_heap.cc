// LiveHeap: event kinds applied to the live-block map (live_heap.h).
#include "analyzers/live_heap.h"

namespace heaprec::analyzers {

void LiveHeap::Add(uint64_t id, const LiveBlock& block, HeapChange* c) {
  LiveBlock old;
  if (blocks_.Put(id, block, &old)) live_bytes_ -= old.size;  // a damaged trace naming it twice
  live_bytes_ += block.size;
  c->made = id;
  c->made_block = block;
}

void LiveHeap::Remove(uint64_t id, HeapChange* c) {
  if (id == 0 && !whole_life_) {  // made while the trace did not record
    ++unknown_frees_;
    ++freed_before_recording_;
    c->before_recording = true;
    return;
  }
  if (id == 0 || !blocks_.Take(id, &c->released_block)) {  // never made, or released
    ++unknown_frees_;
    c->unknown_release = true;
    return;
  }
  live_bytes_ -= c->released_block.size;
  c->released = id;
}

HeapChange LiveHeap::Apply(const format::Event& e) {
  HeapChange c;
  switch (e.kind()) {
    case format::EventKind::kAlloc:
      if (e.block != 0) Add(e.block, {e.size, e.stack, e.api}, &c);
      break;
    case format::EventKind::kFree:
      if (!e.IsNullFree()) Remove(e.block, &c);  // free(NULL) is nothing
      break;
    case format::EventKind::kRealloc:
      if (e.IsFailedRealloc()) break;  // the old block stays
      if (e.HasOldBlock()) Remove(e.old_block, &c);
      if (e.block != 0) Add(e.block, {e.size, e.stack, e.api}, &c);
      break;
    case format::EventKind::kInvalid:
      break;
  }
  return c;
}

}  // namespace heaprec::analyzers
