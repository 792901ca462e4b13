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
// top (analyzer.h) need no map of their own. In a sampled trace
// (set_sample_rate) every block stands for more: live bytes and blocks, and
// each change's Estimate, are scaled by its weight (estimate.h).
// Not thread-safe; memory is proportional to live blocks.
#ifndef HEAPREC_ANALYZERS_LIVE_HEAP_H_
#define HEAPREC_ANALYZERS_LIVE_HEAP_H_

#include <cstdint>

#include "analyzers/block_map.h"
#include "analyzers/estimate.h"
#include "format/records.h"
#include "format/switch_markers.h"

namespace heaprec::analyzers {

// What one event did to the live heap. A realloc that moved its block is two
// events in a trace (the release, then the new block); one that resized in
// place is one event that releases the old block and makes a new one.
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
};

class LiveHeap {
 public:
  HeapChange Apply(const format::Event& e);

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
  const BlockMap& blocks() const { return blocks_; }
  // What live block id stands for ({size, 1} in an exact trace).
  Estimate EstimateOf(uint64_t id, const LiveBlock& block) const;
  // Live bytes and blocks, estimated in a sampled trace.
  uint64_t live_bytes() const { return live_bytes_; }
  uint64_t live_blocks() const { return sampled() ? live_count_ : blocks_.size(); }
  // Releases of blocks not live (before_recording ones included).
  uint64_t unknown_frees() const { return unknown_frees_; }
  // Releases of blocks the trace never saw made, while it did not record
  // the whole life (HeapChange::before_recording).
  uint64_t freed_before_recording() const { return freed_before_recording_; }

 private:
  void Add(uint64_t id, const LiveBlock& block, double weight, HeapChange* c);
  void Remove(uint64_t id, HeapChange* c);

  BlockMap blocks_;
  uint64_t sample_rate_ = 0;
  uint64_t live_bytes_ = 0;
  uint64_t live_count_ = 0;  // estimated blocks (sampled traces)
  uint64_t unknown_frees_ = 0;
  uint64_t freed_before_recording_ = 0;
  bool whole_life_ = true;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_LIVE_HEAP_H_
