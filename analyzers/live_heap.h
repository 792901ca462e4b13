// LiveHeap: the set of blocks live at the current point of the event stream,
// with the stack and size each was allocated with. The shared core of every
// analysis that asks "what is held" (leaks, peak, moments).
//
// Applies the meaning of each event kind (format/records.h): allocations add,
// frees remove, reallocs move or resize (including the two-event form of a
// moved realloc). Blocks are keyed by Event::block (when they were made), not
// by address. Frees of unknown blocks are counted, not fatal.
//
// A recording that does not cover the process's whole life (started paused,
// paused and resumed, attached to a running process) cannot tell a wild
// free from the free of a block made while it did not record: while
// RecordedWholeLife() is false, a free (or realloc) of a block the trace
// never saw made is "freed, allocated before recording"
// (HeapChange::before_recording, freed_before_recording()), never an unknown
// release, so that no analysis reports it as a mismatch. Leaks and the peak
// are then about the blocks made while recording. A trace that records the
// whole life keeps the plain rule.
// Apply() says what the event did (HeapChange), so that the analyzers built on
// top (analyzer.h) need no map of their own, nor a watch of their own for
// temporaries (one TemporaryWatch here, for all). In a sampled trace
// (set_sample_rate) every block stands for more: live bytes and blocks, and
// each change's Estimate, are scaled by its weight (estimate.h).
// Not thread-safe; memory is proportional to live blocks.
#ifndef HEAPREC_ANALYZERS_LIVE_HEAP_H_
#define HEAPREC_ANALYZERS_LIVE_HEAP_H_

#include <cstddef>
#include <cstdint>

#include "analyzers/block_map.h"
#include "analyzers/estimate.h"
#include "analyzers/temporaries.h"
#include "format/records.h"
#include "format/switch_markers.h"

namespace heaprec::analyzers {

// What one event did to the live heap. A realloc that moved its block is two
// events in a trace (the release, then the new block); one that resized in
// place is one event that releases the old block and makes a new one.
// released_block and released_est mean something only when released is not
// 0, made_block and made_est only when made is not 0 (a run's changes are
// written over the last run's, and those are left as they were).
struct HeapChange {
  uint64_t released = 0;  // block released (0 = none)
  LiveBlock released_block;
  uint64_t made = 0;  // block made (0 = none)
  LiveBlock made_block;
  // What the released and made blocks stand for: {size, 1} in an exact
  // trace, scaled by their weight in a sampled one (estimate.h).
  Estimate released_est;
  Estimate made_est;
  // The event released a block that was not live: one the trace never saw
  // made (Event::block 0: made before recording, or a wild pointer), or one
  // already released (a double free).
  bool unknown_release = false;
  // The event released a block the trace never saw made, in a recording
  // that does not cover the whole life (then unknown_release is false).
  bool before_recording = false;
  // The block released was a temporary, as heaptrack counts them
  // (temporaries.h): released_block's stack is the site it counts at.
  bool temporary = false;
  // The heap after the event: LiveHeap::live_bytes() and live_blocks().
  uint64_t live_bytes = 0;
  uint64_t live_blocks = 0;
};

class LiveHeap {
 public:
  HeapChange Apply(const format::Event& e) {
    HeapChange c;
    ApplyTo(e, &c);
    return c;
  }
  // The same into *c (every field written; a caller that keeps the changes
  // of a run in an array writes them in place).
  __attribute__((always_inline)) void Apply(const format::Event& e, HeapChange* c) {
    ApplyTo(e, c);
  }

  // The trace's ProcessInfo::sample_rate (0: exact), before any event.
  void set_sample_rate(uint64_t rate) { sample_rate_ = rate; }
  uint64_t sample_rate() const { return sample_rate_; }
  bool sampled() const { return sample_rate_ != 0; }
  // What the trace says of its coverage, in stream order: the process record
  // (ProcessInfo::from_start) and each marker (recording switched:
  // format/switch_markers.h).
  void OnProcess(const format::ProcessInfo& p) { whole_life_ = whole_life_ && p.from_start; }
  void OnMarker(const format::Marker& m) {
    if (format::IsRecordingSwitch(m.label)) whole_life_ = false;
  }
  // The one predicate: so far, the trace has seen every block the process
  // made (recorded from its start and never paused). Old traces: true.
  bool RecordedWholeLife() const { return whole_life_; }

  // Event::block -> what it was made with.
  const BlockMap<>& blocks() const { return blocks_; }
  // A hint: an event soon applied names block id (BlockMap::Prefetch).
  void Prefetch(uint64_t id) const { blocks_.Prefetch(id); }
  // How many events ahead a loop that applies a run asks for the block (a
  // free names a block made long before, whose slot is rarely in the caches).
  static constexpr size_t kPrefetchEvents = 16;
  // What live block id stands for ({size, 1} in an exact trace).
  Estimate EstimateOf(uint64_t id, const LiveBlock& block) const {
    if (sample_rate_ == 0) return {block.size, 1};
    return SampledEstimateOf(id, block);
  }
  // Live bytes and blocks, estimated in a sampled trace.
  uint64_t live_bytes() const { return live_bytes_; }
  uint64_t live_blocks() const { return sampled() ? live_count_ : blocks_.size(); }
  // Releases of blocks not live (before_recording ones included).
  uint64_t unknown_frees() const { return unknown_frees_; }
  // Releases of blocks the trace never saw made, while it did not record
  // the whole life (HeapChange::before_recording).
  uint64_t freed_before_recording() const { return freed_before_recording_; }

 private:
  friend class AnalysisState;  // analysis_state.h
  // What Apply does, into *c (every field written).
  __attribute__((always_inline)) void ApplyTo(const format::Event& e, HeapChange* c) {
    c->released = c->made = 0;
    c->unknown_release = c->before_recording = false;
    switch (e.kind()) {
      case format::EventKind::kAlloc:
        if (e.block != 0) Add(e, c);
        break;
      case format::EventKind::kFree:
        if (!e.IsNullFree()) Remove(e.block, c);  // free(NULL) is nothing
        break;
      case format::EventKind::kRealloc:
        if (e.IsFailedRealloc()) break;  // the old block stays
        if (e.HasOldBlock()) Remove(e.old_block, c);
        if (e.block != 0) Add(e, c);
        break;
      case format::EventKind::kInvalid:
        break;
    }
    c->temporary = temporary_watch_.Step(c->released, c->released_block, c->made, c->made_block);
    c->live_bytes = live_bytes_;
    c->live_blocks = live_blocks();
  }
  __attribute__((always_inline)) void Add(const format::Event& e, HeapChange* c) {
    const uint64_t id = e.block;
    LiveBlock* b = blocks_.Emplace(id);
    if (__builtin_expect(b == nullptr, 0)) {  // a damaged trace may name a live block again
      bool existed;
      LiveBlock old;
      b = blocks_.EmplaceSlow(id, &existed, &old);
      if (existed) {
        const Estimate was = EstimateOf(id, old);
        live_bytes_ -= was.bytes;
        live_count_ -= was.count;
      }
    }
    // Field by field, from the event's values (never read back).
    b->size = c->made_block.size = e.size;
    b->stack = c->made_block.stack = e.stack;
    b->api = c->made_block.api = e.api;
    const Estimate est = analyzers::EstimateOf(e.size, e.weight, id);
    c->made_est = est;
    live_bytes_ += est.bytes;
    live_count_ += est.count;
    c->made = id;
  }
  __attribute__((always_inline)) void Remove(uint64_t id, HeapChange* c) {
    if (id == 0 && !whole_life_) {  // made while the trace did not record
      ++unknown_frees_;
      ++freed_before_recording_;
      c->before_recording = true;
      return;
    }
    LiveBlock block;
    if (id == 0 || !blocks_.Take(id, &block)) {  // never made, or released
      ++unknown_frees_;
      c->unknown_release = true;
      return;
    }
    const Estimate est = EstimateOf(id, block);
    c->released_block = block;
    c->released_est = est;
    live_bytes_ -= est.bytes;
    live_count_ -= est.count;
    c->released = id;
  }
  Estimate SampledEstimateOf(uint64_t id, const LiveBlock& block) const;

  BlockMap<> blocks_;
  uint64_t sample_rate_ = 0;
  uint64_t live_bytes_ = 0;
  uint64_t live_count_ = 0;  // estimated blocks (sampled traces)
  uint64_t unknown_frees_ = 0;
  uint64_t freed_before_recording_ = 0;
  bool whole_life_ = true;
  TemporaryWatch temporary_watch_;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_LIVE_HEAP_H_
