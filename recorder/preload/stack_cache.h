// StackCache: a thread's previous interned stack, so that the next one
// hashes only the frames that differ and a repeated stack skips the table.
//
// Consecutive allocations of a thread mostly share their outer frames (main,
// the loop, ...) and often the whole stack (a loop allocating at one call
// site). The cache keeps the previous stack outermost first with the hash
// state after each frame (stack_interner.h hashes outermost first) and its
// id. InternStackCached() compares the new stack with it from the outermost
// frame inward; where they part, hashing resumes from the kept state. When
// every frame and the depth match, the kept id is the answer: it was
// returned for exactly these frames in the same region.
//
// Besides, the ids of recent stacks by hash (direct-mapped,
// kRecentStackBits): a stack the thread met lately skips the shared index,
// whose probes are mostly cache misses on Python's and cppcheck's
// ever-changing stacks, and is checked against its arena entry only.
//
// Exactness: the cache only saves hashing and the table probe; an id comes
// from the word-by-word equal previous stack, from a recent entry whose
// arena entry equals the stack word by word, or from InternStackHashed
// (which compares the entry). A cache from another region (the child after
// fork gets a new region and generation) is ignored.
//
// One cache per thread, owned by the caller (recorder.cc keeps it in
// initial-exec TLS, zero-initialized = empty). Not thread-safe by itself;
// async-signal-safe as long as a signal handler does not use the same cache
// (the recorder's re-entry guard sees to that). Never allocates.
#ifndef HEAPREC_RECORDER_PRELOAD_STACK_CACHE_H_
#define HEAPREC_RECORDER_PRELOAD_STACK_CACHE_H_

#include <cstdint>

#include "recorder/shared/region_layout.h"

namespace heaprec::recorder::preload {

// Deeper stacks are interned without the cache.
inline constexpr uint32_t kStackCacheFrames = 128;
// Recent stacks kept per thread (16 bytes each).
inline constexpr uint32_t kRecentStackBits = 10;

struct RecentStack {
  uint64_t hash;
  uint32_t id;
  uint32_t generation;  // 0 = empty
};

struct StackCache {
  uint32_t generation;  // region generation of id; 0 = empty
  uint32_t depth;       // frames kept
  uint32_t id;          // the previous stack's id (never 0 when kept)
  // Left to the caller (recorder.cc's CaptureStack; InternStackCached does
  // not touch them): the unwinder's serial number of the capture the kept
  // stack came from (fast_unwind.h's CaptureInfo; 0 = none), and whether
  // that stack was cut at the depth limit.
  uint32_t truncated;
  uint64_t serial;
  // Also the caller's: the frames that capture skipped before the stack
  // (the recorder's own).
  uint32_t skipped;
  uint64_t frames[kStackCacheFrames];          // outermost first
  uint64_t states[kStackCacheFrames];          // hash state after frames[0..i]
  RecentStack recent[1u << kRecentStackBits];  // by the hash's top bits
};

// InternStack(region, frames, depth, inserted) through the cache; generation
// (never 0) names the region: a cache filled for another one is not used.
// known_outer: how many of the outermost frames the caller knows to equal
// the kept stack's outermost ones (the unwinder copied them from the capture
// the kept stack was made of: CaptureStack); they are not compared again.
// 0 if unknown; more than either stack's depth is taken as their depth.
uint32_t InternStackCached(StackCache& cache, uint32_t generation, const RegionView& region,
                           const uint64_t* frames, uint32_t depth, bool* inserted,
                           uint32_t known_outer = 0);

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_STACK_CACHE_H_
