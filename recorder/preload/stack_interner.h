// StackInterner: stores each distinct call stack once in the region's shared
// stack table and returns its id (the entry's word offset in the arena).
//
// Lock-free: lookups are plain loads; an insert bump-allocates from the arena
// and publishes with one compare-and-swap on the hash index, so concurrent
// threads inserting the same stack may both store it (the loser's copy is
// unused) but agree on the id that the index holds. An id is returned only
// for an entry whose depth and frames equal the caller's, word by word.
//
// The index grows by levels (region_layout.h): when the current level is
// half full, lookups go to the next, twice as large; a stack the previous
// level holds moves up with its id, so a stack in use keeps its id. One met
// again only after two growths is stored again under a new id: a stack may
// have a few ids, each entry holds exactly its frames, and the launcher,
// which builds the trace's stack tree from the frames, gives them one node.
//
// The hash runs from the outermost frame inward (HashStep per frame, then
// HashFinish with the depth), so a caller that knows the hash state after a
// stack's outer frames (stack_cache.h) hashes only the inner ones.
// Thread-safe, async-signal-safe, never allocates. Called on the hot path.
#ifndef HEAPREC_RECORDER_PRELOAD_STACK_INTERNER_H_
#define HEAPREC_RECORDER_PRELOAD_STACK_INTERNER_H_

#include <cstdint>

#include "recorder/shared/region_layout.h"

namespace heaprec::recorder::preload {

// The hash state before any frame.
inline constexpr uint64_t kStackHashSeed = 0x9E3779B97F4A7C15ULL;

// Folds one frame (the next one inward) into the state.
inline uint64_t HashStep(uint64_t state, uint64_t frame) {
  state ^= frame;
  state *= 0xFF51AFD7ED558CCDULL;
  return state ^ (state >> 32);
}

// The hash of a stack whose frames produced state; never 0.
inline uint64_t HashFinish(uint64_t state, uint32_t depth) {
  state ^= depth;
  state *= 0xC4CEB9FE1A85EC53ULL;
  return (state ^ (state >> 29)) | 1;
}

// The hash of frames[0..depth) (innermost first, hashed outermost first).
uint64_t HashFrames(const uint64_t* frames, uint32_t depth);

// Returns the id of frames[0..depth) (innermost first), inserting it if new
// (then *inserted is set); 0 when the table is full (the caller counts it).
uint32_t InternStack(const RegionView& region, const uint64_t* frames, uint32_t depth,
                     bool* inserted);

// The same with hash = HashFrames(frames, depth) computed by the caller.
uint32_t InternStackHashed(const RegionView& region, const uint64_t* frames, uint32_t depth,
                           uint64_t hash, bool* inserted);

// True if entry id (an id InternStack returned) holds exactly
// frames[0..depth), whose hash is hash.
bool StackEntryEquals(const RegionView& region, uint32_t id, const uint64_t* frames, uint32_t depth,
                      uint64_t hash);

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_STACK_INTERNER_H_
