// StackCache: the previous stack, outermost first, with its hash states (stack_cache.h).
#include "recorder/preload/stack_cache.h"

#include <cstddef>

#include "recorder/preload/stack_interner.h"

namespace heaprec::recorder::preload {
namespace {

// How many of kept[0..limit) equal inner[0], inner[-1], ... (the new stack
// from its outermost frame inward), the first `known` of them known equal;
// four at a time while they all match.
uint32_t CommonOuter(const uint64_t* kept, const uint64_t* inner, uint32_t limit, uint32_t known) {
  uint32_t j = known < limit ? known : limit;
  for (; j + 4 <= limit; j += 4) {
    const uint64_t diff = (kept[j] ^ inner[-static_cast<intptr_t>(j)]) |
                          (kept[j + 1] ^ inner[-static_cast<intptr_t>(j) - 1]) |
                          (kept[j + 2] ^ inner[-static_cast<intptr_t>(j) - 2]) |
                          (kept[j + 3] ^ inner[-static_cast<intptr_t>(j) - 3]);
    if (diff != 0) break;
  }
  while (j < limit && kept[j] == inner[-static_cast<intptr_t>(j)]) ++j;
  return j;
}

}  // namespace

uint32_t InternStackCached(StackCache& cache, uint32_t generation, const RegionView& region,
                           const uint64_t* frames, uint32_t depth, bool* inserted,
                           uint32_t known_outer) {
  if (depth == 0 || depth > kStackCacheFrames) {
    cache.generation = 0;
    return InternStack(region, frames, depth, inserted);
  }
  // Outer frames shared with the previous stack: frames[depth - 1 - j] is
  // the j-th from the outermost.
  uint32_t same = 0;
  if (cache.generation == generation) {
    const uint32_t limit = depth < cache.depth ? depth : cache.depth;
    same = CommonOuter(cache.frames, frames + depth - 1, limit, known_outer);
    if (same == depth && depth == cache.depth) return cache.id;
  }
  uint64_t h = same > 0 ? cache.states[same - 1] : kStackHashSeed;
  for (uint32_t j = same; j < depth; ++j) {
    const uint64_t frame = frames[depth - 1 - j];
    h = HashStep(h, frame);
    cache.frames[j] = frame;
    cache.states[j] = h;
  }
  const uint64_t hash = HashFinish(h, depth);
  RecentStack& recent = cache.recent[hash >> (64 - kRecentStackBits)];
  uint32_t id;
  if (recent.generation == generation && recent.hash == hash &&
      StackEntryEquals(region, recent.id, frames, depth, hash)) {
    id = recent.id;
  } else {
    id = InternStackHashed(region, frames, depth, hash, inserted);
    if (id != 0) recent = {hash, id, generation};
  }
  // frames[0..depth) of the cache now hold this stack; keep it if it has an id.
  cache.depth = depth;
  cache.id = id;
  cache.generation = id != 0 ? generation : 0;
  return id;
}

}  // namespace heaprec::recorder::preload
