// LiveHeap: event kinds applied to the live-block map (live_heap.h).
#include "analyzers/live_heap.h"

#include "format/sampling.h"

namespace heaprec::analyzers {

Estimate LiveHeap::EstimateOf(uint64_t id, const LiveBlock& block) const {
  if (sample_rate_ == 0) return {block.size, 1};
  // The weight the reader gave the event that made it (format/sampling.h).
  return analyzers::EstimateOf(block.size, format::SampleWeight(block.size, sample_rate_), id);
}

void LiveHeap::Add(uint64_t id, const LiveBlock& block, double weight, HeapChange* c) {
  LiveBlock old;
  if (blocks_.Put(id, block, &old)) {  // a damaged trace naming it twice
    const Estimate e = EstimateOf(id, old);
    live_bytes_ -= e.bytes;
    live_count_ -= e.count;
  }
  c->made_est = analyzers::EstimateOf(block.size, weight, id);
  live_bytes_ += c->made_est.bytes;
  live_count_ += c->made_est.count;
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
  c->released_est = EstimateOf(id, c->released_block);
  live_bytes_ -= c->released_est.bytes;
  live_count_ -= c->released_est.count;
  c->released = id;
}

HeapChange LiveHeap::Apply(const format::Event& e) {
  HeapChange c;
  switch (e.kind()) {
    case format::EventKind::kAlloc:
      if (e.block != 0) Add(e.block, {e.size, e.stack, e.api}, e.weight, &c);
      break;
    case format::EventKind::kFree:
      if (!e.IsNullFree()) Remove(e.block, &c);  // free(NULL) is nothing
      break;
    case format::EventKind::kRealloc:
      if (e.IsFailedRealloc()) break;  // the old block stays
      if (e.HasOldBlock()) Remove(e.old_block, &c);
      if (e.block != 0) Add(e.block, {e.size, e.stack, e.api}, e.weight, &c);
      break;
    case format::EventKind::kInvalid:
      break;
  }
  return c;
}

}  // namespace heaprec::analyzers
