// StackInterner: open addressing over the shared index, entries in the arena.
#include "recorder/preload/stack_interner.h"

#include <emmintrin.h>

#include "recorder/preload/populate.h"

namespace heaprec::recorder::preload {
namespace {

constexpr uint32_t kMaxProbes = 256;
// The arena is written in order: an entry that crosses into the next
// kPopulateWords maps the ones after in one call (populate.h).
constexpr uint64_t kPopulateWords = 32768;  // 256 KiB

// Called once the hashes are equal, when the frames almost always are too:
// the differences of every four frames are or-ed together (SSE2) and looked
// at once, at the end.
bool SameStack(const uint64_t* entry, uint64_t hash, const uint64_t* frames, uint32_t depth) {
  if (entry[0] != hash || entry[1] != depth) return false;
  const uint64_t* kept = entry + kStackEntryHeaderWords;
  uint32_t i = 0;
  __m128i diff = _mm_setzero_si128();
  for (; i + 4 <= depth; i += 4) {
    const auto* k = reinterpret_cast<const __m128i*>(kept + i);
    const auto* f = reinterpret_cast<const __m128i*>(frames + i);
    diff = _mm_or_si128(diff, _mm_xor_si128(_mm_loadu_si128(k), _mm_loadu_si128(f)));
    diff = _mm_or_si128(diff, _mm_xor_si128(_mm_loadu_si128(k + 1), _mm_loadu_si128(f + 1)));
  }
  uint64_t rest = 0;
  for (; i < depth; ++i) rest |= kept[i] ^ frames[i];
  return rest == 0 && _mm_movemask_epi8(_mm_cmpeq_epi8(diff, _mm_setzero_si128())) == 0xFFFF;
}

}  // namespace

bool StackEntryEquals(const RegionView& region, uint32_t id, const uint64_t* frames, uint32_t depth,
                      uint64_t hash) {
  return SameStack(region.stack_arena() + id, hash, frames, depth);
}

uint64_t HashFrames(const uint64_t* frames, uint32_t depth) {
  uint64_t h = kStackHashSeed;
  for (uint32_t i = depth; i > 0; --i) h = HashStep(h, frames[i - 1]);
  return HashFinish(h, depth);
}

uint32_t InternStack(const RegionView& region, const uint64_t* frames, uint32_t depth,
                     bool* inserted) {
  return InternStackHashed(region, frames, depth, HashFrames(frames, depth), inserted);
}

namespace {

// Level `level` of the index (region_layout.h): its table and slot mask.
std::atomic<uint32_t>* LevelTable(const RegionView& region, uint32_t level, uint32_t* mask) {
  const uint32_t bits = kStackIndexFirstBits + level;
  *mask = (1u << bits) - 1;
  return region.stack_index() + ((1u << bits) - (1u << kStackIndexFirstBits));
}

// The id level holds for the stack, or 0; reads only.
uint32_t FindInLevel(const RegionView& region, uint32_t level, const uint64_t* frames,
                     uint32_t depth, uint64_t hash) {
  uint32_t mask = 0;
  const std::atomic<uint32_t>* index = LevelTable(region, level, &mask);
  uint32_t slot = static_cast<uint32_t>(hash) & mask;
  for (uint32_t probe = 0; probe < kMaxProbes; ++probe) {
    const uint32_t id = index[slot].load(std::memory_order_acquire);
    if (id == 0) return 0;
    if (SameStack(region.stack_arena() + id, hash, frames, depth)) return id;
    slot = (slot + 1) & mask;
  }
  return 0;
}

}  // namespace

uint32_t InternStackHashed(const RegionView& region, const uint64_t* frames, uint32_t depth,
                           uint64_t hash, bool* inserted) {
  RegionHeader* header = region.header();
  const uint32_t level = header->stack_index_level.load(std::memory_order_acquire);
  uint32_t mask = 0;
  std::atomic<uint32_t>* index = LevelTable(region, level, &mask);
  uint64_t* arena = region.stack_arena();
  uint32_t slot = static_cast<uint32_t>(hash) & mask;
  uint32_t mine = 0;  // the id to publish: the previous level's, or our new copy
  bool copied = false;
  for (uint32_t probe = 0; probe < kMaxProbes; ++probe) {
    uint32_t id = index[slot].load(std::memory_order_acquire);
    if (id == 0) {
      // Not at this level: a stack the previous level holds moves up with
      // its id; only a stack neither holds gets a new entry.
      if (mine == 0 && level > 0) mine = FindInLevel(region, level - 1, frames, depth, hash);
      if (mine == 0) {
        const uint64_t words = kStackEntryHeaderWords + depth;
        const uint64_t at = header->stack_arena_used.fetch_add(words, std::memory_order_relaxed);
        if (at + words > kStackArenaWords || at > UINT32_MAX - words) return 0;
        const uint64_t next = (at + words) / kPopulateWords + 1;
        if (at / kPopulateWords != (at + words) / kPopulateWords &&
            (next + 1) * kPopulateWords <= kStackArenaWords) {
          PopulateForWrite(arena + next * kPopulateWords, kPopulateWords * sizeof(uint64_t));
        }
        uint64_t* entry = arena + at;
        entry[0] = hash;
        entry[1] = depth;
        for (uint32_t i = 0; i < depth; ++i) entry[kStackEntryHeaderWords + i] = frames[i];
        mine = static_cast<uint32_t>(at);
        copied = true;
      }
      if (index[slot].compare_exchange_strong(id, mine, std::memory_order_acq_rel)) {
        if (copied) *inserted = true;
        // Half full: the next level takes the stacks from now on.
        const uint32_t n = header->stack_index_entries.fetch_add(1, std::memory_order_relaxed) + 1;
        if (level + 1 < kStackIndexLevels && n > (mask >> 1)) {
          uint32_t expected = level;
          if (header->stack_index_level.compare_exchange_strong(expected, level + 1,
                                                                std::memory_order_acq_rel)) {
            header->stack_index_entries.store(0, std::memory_order_relaxed);
            uint32_t next_mask = 0;  // its slots are probed at random: map them all now
            const std::atomic<uint32_t>* next = LevelTable(region, level + 1, &next_mask);
            PopulateForWrite(next, (size_t{next_mask} + 1) * sizeof(uint32_t));
          }
        }
        return mine;
      }
      // Lost the race: id now holds the winner's entry; compare it below.
    }
    if (SameStack(arena + id, hash, frames, depth)) return id;
    slot = (slot + 1) & mask;
  }
  return 0;
}

}  // namespace heaprec::recorder::preload
