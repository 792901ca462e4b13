// ClassifyLeaks against the slow references of reference_scan.h on random
// processes: random block sizes and layouts (two arenas far apart), words
// that are start, interior (+8, +24, last byte, any), one-past-the-end
// pointers or junk, blocks baited for each heuristic, vtables valid and not,
// root ranges with unaligned ends and repeated ids, register values,
// unreadable pages, a pointer filter, random heuristic sets and read batch
// sizes. Kinds, heuristic fields, clique sizes and retaining roots must all
// be equal.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <random>
#include <vector>

#include "recorder/leakscan/fake_memory.h"
#include "recorder/leakscan/leak_graph.h"
#include "recorder/leakscan/reference_scan.h"
#include "recorder/leakscan/vtable_oracle.h"

namespace heaprec::recorder::leakscan {
namespace {

constexpr uint64_t kText = 0x400000;
constexpr uint64_t kRelRo = 0x402000;
constexpr uint64_t kRoots = 0x600000;
constexpr uint64_t kRootBytes = 0x1800;
constexpr uint64_t kArena1 = 0x10000000;
constexpr uint64_t kArena2 = 0x7f0000000000;
constexpr uint64_t kArenaBytes = 0x100000;

class DropSevens : public PointerFilter {
 public:
  bool Ignore(uint64_t value, const BlockRef& hit) const override {
    return (value >> 3) % 7 == 0 && hit.size % 2 == 0;
  }
};

struct RandomProcess {
  FakeMemory memory;
  std::unique_ptr<SegmentVtableOracle> vtables;
  std::vector<LiveBlock> blocks;
  std::vector<RootRange> ranges;
  std::vector<RootValue> values;
  std::vector<uint64_t> good_vtables, bad_vtables;
};

uint64_t Pick(std::mt19937_64& rng, std::initializer_list<uint64_t> choices) {
  return *(choices.begin() + rng() % choices.size());
}

// A value to store: a pointer of some kind with probability density/1000,
// else junk.
uint64_t RandomValue(std::mt19937_64& rng, const RandomProcess& p, uint64_t density) {
  const int dice = rng() % 1000 < density ? static_cast<int>(30 + rng() % 70) : 0;
  if (p.blocks.empty() || dice < 30) {
    return Pick(rng, {0, 0, 1, 7, 64, 4096, 0xdeadbeef, kArena1 - 8});
  }
  const LiveBlock& b = p.blocks[rng() % p.blocks.size()];
  if (dice < 60) return b.address;
  if (dice < 70) return b.address + 8;
  if (dice < 75) return b.address + 24;
  if (dice < 80) return b.address + b.size;  // one past the end
  if (dice < 85) return b.address + (b.size == 0 ? 0 : b.size - 1);
  if (dice < 92) return b.address + (b.size == 0 ? 0 : rng() % b.size);
  if (dice < 96 && !p.good_vtables.empty()) return p.good_vtables[rng() % p.good_vtables.size()];
  if (!p.bad_vtables.empty()) return p.bad_vtables[rng() % p.bad_vtables.size()];
  return b.address;
}

RandomProcess MakeProcess(std::mt19937_64& rng, size_t block_count) {
  RandomProcess p;
  const std::vector<Segment> segments = {
      {kText, kText + 0x1000, true, true, true},
      {kRelRo, kRelRo + 0x1000, true, true, false},
      {kRoots, kRoots + kRootBytes, true, false, false},
      {kArena1, kArena1 + kArenaBytes, true, false, false},
      {kArena2, kArena2 + kArenaBytes, true, false, false},
  };
  for (const Segment& s : segments) p.memory.Map(s.start, s.end - s.start);
  p.vtables = std::make_unique<SegmentVtableOracle>(segments, &p.memory);
  // Vtables: good ones (two code pointers, maybe a null between), bad ones
  // (typeinfo first, one code pointer only, or data).
  uint64_t at = kRelRo + 0x80;
  for (int v = 0; v < 6; ++v) {
    const bool good = v % 2 == 0;
    p.memory.Write64(at, good ? kText + 0x100 : kRelRo + 0x10);
    p.memory.Write64(at + 8, v == 2 ? 0 : kText + 0x200);
    p.memory.Write64(at + 16, good ? kText + 0x300 : 0);
    (good ? p.good_vtables : p.bad_vtables).push_back(at);
    at += 64;
  }
  p.bad_vtables.push_back(kRelRo + 0xff8);  // the segment's last word: never looked at

  // Blocks in two arenas; sizes small, odd, zero and word-multiple.
  uint64_t cursor = kArena1 + 16 * (rng() % 4);
  for (size_t i = 0; i < block_count; ++i) {
    if (i == block_count / 2) cursor = kArena2 + 16;
    const uint64_t size =
        Pick(rng, {0, 1, 7, 8, 12, 13, 16, 24, 25, 32, 40, 48, 56, 65, 72, 100, 4100});
    p.blocks.push_back({cursor, size});
    cursor += (size + 15) / 16 * 16 + 16 * (rng() % 3);
    if (size == 0) cursor += 16;
  }
  // Contents (sparse or dense), then baits for each heuristic.
  const uint64_t density = Pick(rng, {20, 60, 150, 400});
  for (const LiveBlock& b : p.blocks) {
    for (uint64_t a = b.address; a + 8 <= b.address + b.size; a += 8) {
      p.memory.Write64(a, RandomValue(rng, p, density));
    }
    if (b.size < 16) continue;
    switch (rng() % 6) {
      case 0:
        p.memory.Write64(b.address, 1);  // newarray with any size
        break;
      case 1:
        p.memory.Write64(b.address, b.size - 8);  // length64
        break;
      case 2:
        if (b.size > 25) {  // stdstring
          p.memory.Write64(b.address + 8, b.size - 25);
          p.memory.Write64(b.address, rng() % (b.size - 24));
        }
        break;
      case 3: {  // multiple inheritance
        p.memory.Write64(b.address, p.good_vtables[rng() % p.good_vtables.size()]);
        const uint64_t words = b.size / 8;
        const uint64_t inner = b.address + 8 * (1 + rng() % (words - 1));
        p.memory.Write64(
            inner, rng() % 4 ? p.good_vtables[rng() % p.good_vtables.size()] : p.bad_vtables[0]);
        break;
      }
      default:
        break;
    }
  }
  // Roots: pieces of the root area in ascending order, ids 1..4 (repeated,
  // not always contiguous), ends not always aligned.
  for (uint64_t a = kRoots; a < kRoots + kRootBytes; a += 8) {
    p.memory.Write64(a, RandomValue(rng, p, density / 4));
  }
  uint64_t start = kRoots + rng() % 16;
  while (start < kRoots + kRootBytes - 64) {
    const uint64_t end = std::min(kRoots + kRootBytes, start + 1 + rng() % 1200);
    p.ranges.push_back({start, end, static_cast<RootId>(1 + rng() % 4)});
    start = end + rng() % 64;
  }
  for (int k = 0; k < 8; ++k) {
    p.values.push_back({RandomValue(rng, p, 300), static_cast<RootId>(5 + rng() % 2)});
  }
  // Unreadable pages.
  if (rng() % 4 == 0) p.memory.MakeUnreadable(kArena1 + 4096 * (rng() % 4), 4096);
  if (rng() % 6 == 0) p.memory.MakeUnreadable(kRoots + 4096 * (rng() % 3), 4096);
  return p;
}

HeuristicSet RandomSet(std::mt19937_64& rng) {
  if (rng() % 2) return HeuristicSet::All();
  HeuristicSet set = HeuristicSet::None();
  for (int h = 1; h < kHeuristicCount; ++h) {
    if (rng() % 2) set = set.With(static_cast<Heuristic>(h));
  }
  return set;
}

// What the rounds covered, so that a generator change cannot make the test
// vacuous.
struct Coverage {
  uint64_t kinds[kLeakKindCount] = {};
  uint64_t heuristics[kHeuristicCount] = {};
  uint64_t possible_with_heuristic = 0;
  uint64_t cliques_with_indirect = 0;
  uint64_t single_root = 0;
  uint64_t several_roots = 0;
  uint64_t ignored = 0;
  uint64_t unreadable = 0;
};

void CompareOnce(std::mt19937_64& rng, size_t block_count, int round, Coverage* cover) {
  RandomProcess p = MakeProcess(rng, block_count);
  DropSevens filter;
  const bool with_filter = rng() % 3 == 0;
  LeakScanOptions options;
  options.heuristics = RandomSet(rng);
  options.read_batch_bytes = Pick(rng, {4096, 10000, 1 << 20});
  options.merge_gap_bytes = Pick(rng, {0, 64, 4096});

  LeakScanInput input;
  input.blocks = p.blocks;
  input.root_ranges = p.ranges;
  input.root_values = p.values;
  input.memory = &p.memory;
  input.vtables = p.vtables.get();
  input.filter = with_filter ? &filter : nullptr;
  LeakScanResult result;
  std::string error;
  ASSERT_TRUE(ClassifyLeaks(input, options, &result, &error)) << error;

  ReferenceInput ref;
  ref.blocks = p.blocks;
  ref.root_ranges = p.ranges;
  ref.root_values = p.values;
  ref.memory = &p.memory;
  ref.vtables = p.vtables.get();
  ref.filter = input.filter;
  ref.heuristics = options.heuristics;
  const ReferenceResult literal = LiteralClassify(ref);
  const ReferenceResult fixpoint = FixpointClassify(ref);
  const std::vector<RootId> retention = RetentionByRemoval(ref);

  size_t heuristic_blocks = 0;
  for (size_t i = 0; i < p.blocks.size(); ++i) {
    ASSERT_EQ(result.verdicts[i].kind, literal.kind[i]) << "round " << round << " block " << i;
    ASSERT_EQ(result.verdicts[i].heuristic, literal.heuristic[i])
        << "round " << round << " block " << i;
    ASSERT_EQ(result.indirect_bytes[i], literal.indirect[i]) << "round " << round << " block " << i;
    ASSERT_EQ(fixpoint.kind[i], literal.kind[i]) << "round " << round << " block " << i;
    ASSERT_EQ(fixpoint.indirect[i], literal.indirect[i]) << "round " << round << " block " << i;
    ASSERT_EQ(result.retaining_root[i], retention[i]) << "round " << round << " block " << i;
    if (literal.heuristic[i] != Heuristic::kNone) ++heuristic_blocks;
    ++cover->kinds[static_cast<int>(literal.kind[i])];
    ++cover->heuristics[static_cast<int>(literal.heuristic[i])];
    if (literal.heuristic[i] != Heuristic::kNone && literal.kind[i] == LeakKind::kPossiblyLost) {
      ++cover->possible_with_heuristic;
    }
    if (literal.indirect[i] > 0) ++cover->cliques_with_indirect;
    if (retention[i] == kSeveralRoots) ++cover->several_roots;
    if (retention[i] != kSeveralRoots && retention[i] != kNoRoot) ++cover->single_root;
  }
  cover->ignored += result.stats.ignored_pointers;
  cover->unreadable += result.stats.unreadable_bytes;
  uint64_t heuristic_total = 0;
  for (int h = 1; h < kHeuristicCount; ++h) heuristic_total += result.via_heuristic[h].blocks;
  EXPECT_EQ(heuristic_total, heuristic_blocks);
}

TEST(ReferenceCompare, SmallRandomProcesses) {
  std::mt19937_64 rng(42);
  Coverage cover;
  for (int round = 0; round < 2000; ++round) {
    CompareOnce(rng, 1 + rng() % 60, round, &cover);
    if (HasFatalFailure()) return;
  }
  for (int k = 0; k < kLeakKindCount; ++k) EXPECT_GT(cover.kinds[k], 20u) << "kind " << k;
  for (int h = 1; h < kHeuristicCount; ++h) EXPECT_GT(cover.heuristics[h], 5u) << "heuristic " << h;
  EXPECT_GT(cover.possible_with_heuristic, 0u);
  EXPECT_GT(cover.cliques_with_indirect, 20u);
  EXPECT_GT(cover.single_root, 20u);
  EXPECT_GT(cover.several_roots, 20u);
  EXPECT_GT(cover.ignored, 0u);
  EXPECT_GT(cover.unreadable, 0u);
  std::printf(
      "kinds %llu %llu %llu %llu; heuristics %llu %llu %llu %llu (%llu possible); "
      "cliques %llu; retained by one root %llu, several %llu\n",
      (unsigned long long)cover.kinds[0], (unsigned long long)cover.kinds[1],
      (unsigned long long)cover.kinds[2], (unsigned long long)cover.kinds[3],
      (unsigned long long)cover.heuristics[1], (unsigned long long)cover.heuristics[2],
      (unsigned long long)cover.heuristics[3], (unsigned long long)cover.heuristics[4],
      (unsigned long long)cover.possible_with_heuristic,
      (unsigned long long)cover.cliques_with_indirect, (unsigned long long)cover.single_root,
      (unsigned long long)cover.several_roots);
}

TEST(ReferenceCompare, LargerRandomProcesses) {
  std::mt19937_64 rng(4242);
  Coverage cover;
  for (int round = 0; round < 40; ++round) {
    CompareOnce(rng, 800 + rng() % 1200, round, &cover);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace heaprec::recorder::leakscan
