// StackInterner: stores each distinct call stack once in the region's shared
// stack table and returns its id (the entry's word offset in the arena).
//
// Lock-free: lookups are plain loads; an insert bump-allocates from the arena
// and publishes with one compare-and-swap on the hash index, so concurrent
// threads inserting the same stack may both store it (the loser's copy is
// unused) but always agree on the id that the index holds.
// Thread-safe, async-signal-safe, never allocates. Called on the hot path.
#ifndef HEAPREC_RECORDER_PRELOAD_STACK_INTERNER_H_
#define HEAPREC_RECORDER_PRELOAD_STACK_INTERNER_H_

#include <cstdint>

#include "recorder/shared/region_layout.h"

namespace heaprec::recorder::preload {

// Returns the id of frames[0..depth) (innermost first), inserting it if new
// (then *inserted is set); 0 when the table is full (the caller counts it).
uint32_t InternStack(const RegionView& region, const uint64_t* frames, uint32_t depth,
                     bool* inserted);

// The hash the index uses; exposed for tests.
uint64_t HashFrames(const uint64_t* frames, uint32_t depth);

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_STACK_INTERNER_H_
