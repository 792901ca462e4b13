// ClassifyLeaks' contract beyond memcheck's experiments: the pointer filter,
// unreadable memory, how memory is read (in batches, never word by word),
// lookups at block edges, statistics, and input errors.
#include "recorder/leakscan/leak_graph.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "recorder/leakscan/fake_memory.h"
#include "recorder/leakscan/synthetic_process.h"

namespace heaprec::recorder::leakscan {
namespace {

// Drops one exact value (a glibc chunk header inside a block's tail).
class DropValue : public PointerFilter {
 public:
  explicit DropValue(uint64_t value) : value_(value) {}
  bool Ignore(uint64_t value, const BlockRef& hit) const override {
    ++calls;
    last_hit = hit;
    return value == value_;
  }
  mutable int calls = 0;
  mutable BlockRef last_hit;

 private:
  uint64_t value_;
};

LeakScanResult Classify(FakeMemory* memory, const std::vector<LiveBlock>& blocks,
                        const std::vector<RootRange>& roots,
                        const LeakScanOptions& options = LeakScanOptions()) {
  LeakScanInput input;
  input.blocks = blocks;
  input.root_ranges = roots;
  input.memory = memory;
  LeakScanResult r;
  std::string error;
  EXPECT_TRUE(ClassifyLeaks(input, options, &r, &error)) << error;
  return r;
}

TEST(LeakGraph, FilterDropsAChunkHeaderInsideABlock) {
  // malloc(24): the next chunk's header sits at p+16, inside p's requested
  // bytes; glibc's bins point at it. Unfiltered it makes p possibly lost.
  SyntheticProcess p;
  const uint64_t block = p.Malloc(24);
  p.Set(p.Global(), block + 16);
  EXPECT_EQ(p.Scan().totals(LeakKind::kPossiblyLost).blocks, 1u);
  DropValue filter(block + 16);
  const LeakScanResult r = p.Scan(LeakScanOptions(), &filter);
  EXPECT_EQ(r.totals(LeakKind::kDefinitelyLost).bytes, 24u);
  EXPECT_EQ(r.stats.ignored_pointers, 1u);
  EXPECT_EQ(filter.calls, 1);
  EXPECT_EQ(filter.last_hit.index, 0u);
  EXPECT_EQ(filter.last_hit.address, block);
  EXPECT_EQ(filter.last_hit.size, 24u);
}

TEST(LeakGraph, FilterAppliesToBlockContentsAndRegisters) {
  SyntheticProcess p;
  const uint64_t a = p.Malloc(16), b = p.Malloc(16), c = p.Malloc(16);
  p.Set(p.Global(), a);
  p.Set(a, b);
  p.AddRegister(c, 50);
  DropValue drop_b(b);
  EXPECT_EQ(p.Scan(LeakScanOptions(), &drop_b).verdicts[1].kind, LeakKind::kDefinitelyLost);
  DropValue drop_c(c);
  EXPECT_EQ(p.Scan(LeakScanOptions(), &drop_c).verdicts[2].kind, LeakKind::kDefinitelyLost);
}

TEST(LeakGraph, UnreadableRootWordsAreNotPointers) {
  SyntheticProcess p;
  const uint64_t a = p.Malloc(16), b = p.Malloc(16);
  p.Set(SyntheticProcess::kTls + 0x100, a);
  p.Set(SyntheticProcess::kTls + 0x1100, b);
  p.memory().MakeUnreadable(SyntheticProcess::kTls + 0x1000, 0x1000);
  const LeakScanResult r = p.Scan();
  EXPECT_EQ(r.verdicts[0].kind, LeakKind::kStillReachable);
  EXPECT_EQ(r.verdicts[1].kind, LeakKind::kDefinitelyLost);
  EXPECT_EQ(r.stats.unreadable_bytes, 0x1000u);
}

TEST(LeakGraph, UnreadablePartOfABlockHidesItsPointers) {
  SyntheticProcess p;
  const uint64_t big = p.Malloc(3 * 4096);  // starts at kHeap + 0x40
  const uint64_t a = p.Malloc(16), b = p.Malloc(16);
  p.Set(p.Global(), big);
  p.Set(big + 8, a);                           // in the heap's first page
  p.Set(SyntheticProcess::kHeap + 0x1008, b);  // in its second page
  p.memory().MakeUnreadable(SyntheticProcess::kHeap + 0x1000, 0x1000);
  const LeakScanResult r = p.Scan();
  EXPECT_EQ(r.verdicts[p.IndexOf(a)].kind, LeakKind::kStillReachable);
  EXPECT_EQ(r.verdicts[p.IndexOf(b)].kind, LeakKind::kDefinitelyLost);
}

TEST(LeakGraph, AFailedMergedReadLosesNoBlock) {
  // Two heap mappings a page apart, the page between them unmapped: blocks
  // on both sides are read as one range first, which fails.
  FakeMemory memory;
  memory.Map(0x10000, 0x1000);
  memory.Map(0x20000, 0x1000);
  memory.Map(0x22000, 0x1000);
  const std::vector<LiveBlock> blocks = {{0x20f00, 64}, {0x20fc0, 32}, {0x22010, 32}};
  memory.Write64(0x10000, 0x20f00);
  memory.Write64(0x20f00, 0x22010);
  memory.Write64(0x22010, 0x20fc0);
  LeakScanOptions options;
  options.merge_gap_bytes = 0x2000;
  const LeakScanResult r = Classify(&memory, blocks, {{0x10000, 0x11000, 1}}, options);
  EXPECT_EQ(r.totals(LeakKind::kStillReachable).blocks, 3u);
  EXPECT_EQ(r.stats.unreadable_bytes, 0x1000u);  // the unmapped page, nothing else
}

TEST(LeakGraph, ReadsInBatchesNeverWordByWord) {
  FakeMemory memory;
  const uint64_t heap = 0x1000000, n = 5000;
  memory.Map(heap, n * 64);
  memory.Map(0x10000, 0x10000);
  std::vector<LiveBlock> blocks;
  for (uint64_t i = 0; i < n; ++i) {
    blocks.push_back({heap + 64 * i, 40});
    if (i + 1 < n) memory.Write64(heap + 64 * i + 8, heap + 64 * (i + 1));
  }
  memory.Write64(0x10000, heap);
  LeakScanResult r;
  for (const uint64_t gap : {uint64_t{0}, uint64_t{4096}}) {
    memory.ResetCounts();
    LeakScanOptions options;
    options.merge_gap_bytes = gap;
    r = Classify(&memory, blocks, {{0x10000, 0x20000, 1}}, options);
    EXPECT_EQ(r.totals(LeakKind::kStillReachable).blocks, n);
    EXPECT_LE(memory.counts().max_requests_in_a_call, kMaxReadRequests);
    if (gap == 0) {
      // One range a block, 1024 to a call; the root range in one read.
      EXPECT_EQ(memory.counts().calls, 1 + (n + kMaxReadRequests - 1) / kMaxReadRequests);
      EXPECT_EQ(memory.counts().smallest_request, 40u);
    } else {
      // Neighbours merge: the whole heap in one range.
      EXPECT_EQ(memory.counts().calls, 2u);
      EXPECT_EQ(memory.counts().requests, 2u);
    }
  }
  EXPECT_EQ(r.stats.read_calls, 2u);
  EXPECT_EQ(r.stats.words_examined, 0x10000 / 8 + n * 5);
  EXPECT_EQ(r.stats.pointers, n);
  EXPECT_EQ(r.stats.phase1_scans, n);
  EXPECT_EQ(r.stats.checked_bytes, 0x10000 + n * 40);  // memcheck's "Checked" line
}

TEST(LeakGraph, LargeRootRangesAreReadInChunks) {
  FakeMemory memory;
  memory.Map(0x100000, 5 << 20);
  memory.Map(0x10000000, 0x1000);
  const std::vector<LiveBlock> blocks = {{0x10000010, 16}};
  memory.Write64(0x100000 + (5 << 20) - 8, 0x10000010);  // the range's last word
  const LeakScanResult r = Classify(&memory, blocks, {{0x100000, 0x100000 + (5 << 20), 1}});
  EXPECT_EQ(r.totals(LeakKind::kStillReachable).blocks, 1u);
  EXPECT_EQ(r.stats.root_bytes_read, uint64_t{5} << 20);
  EXPECT_EQ(memory.counts().calls, 6u);  // 5 chunks of 1 MiB, then the block
}

TEST(LeakGraph, ZeroSizeBlockNextToAnother) {
  // A size-0 block covers one byte: its address is its, the next byte the
  // next block's.
  FakeMemory memory;
  memory.Map(0x10000, 0x1000);
  memory.Map(0x20000, 0x1000);
  const std::vector<LiveBlock> blocks = {{0x20000, 0}, {0x20001, 15}, {0x20020, 16}};
  memory.Write64(0x10000, 0x20000);
  memory.Write64(0x10008, 0x20001);
  memory.Write64(0x10010, 0x20020 + 16);  // one past the end: nothing
  const LeakScanResult r = Classify(&memory, blocks, {{0x10000, 0x11000, 1}});
  EXPECT_EQ(r.verdicts[0].kind, LeakKind::kStillReachable);
  EXPECT_EQ(r.verdicts[1].kind, LeakKind::kStillReachable);
  EXPECT_EQ(r.verdicts[2].kind, LeakKind::kDefinitelyLost);
}

TEST(LeakGraph, NoBlocks) {
  FakeMemory memory;
  const LeakScanResult r = Classify(&memory, {}, {});
  EXPECT_TRUE(r.verdicts.empty());
  EXPECT_EQ(memory.counts().calls, 0u);
}

TEST(LeakGraph, BadInputIsRefusedWithAReason) {
  FakeMemory memory;
  LeakScanResult r;
  std::string error;
  LeakScanInput input;
  EXPECT_FALSE(ClassifyLeaks(input, LeakScanOptions(), &r, &error));
  EXPECT_EQ(error, "no memory source");

  input.memory = &memory;
  const std::vector<LiveBlock> unsorted = {{0x2000, 16}, {0x1000, 16}};
  input.blocks = unsorted;
  EXPECT_FALSE(ClassifyLeaks(input, LeakScanOptions(), &r, &error));
  EXPECT_NE(error.find("block 1"), std::string::npos) << error;

  const std::vector<LiveBlock> overlapping = {{0x1000, 32}, {0x1010, 16}};
  input.blocks = overlapping;
  EXPECT_FALSE(ClassifyLeaks(input, LeakScanOptions(), &r, &error));
  EXPECT_NE(error.find("overlap"), std::string::npos) << error;

  const std::vector<LiveBlock> zero_then_same = {{0x1000, 0}, {0x1000, 8}};
  input.blocks = zero_then_same;
  EXPECT_FALSE(ClassifyLeaks(input, LeakScanOptions(), &r, &error));

  input.blocks = {};
  const std::vector<RootRange> reserved = {{0x1000, 0x2000, kNoRoot}};
  input.root_ranges = reserved;
  EXPECT_FALSE(ClassifyLeaks(input, LeakScanOptions(), &r, &error));
  EXPECT_NE(error.find("reserved"), std::string::npos) << error;

  input.root_ranges = {};
  const std::vector<RootValue> several = {{0x1000, kSeveralRoots}};
  input.root_values = several;
  EXPECT_FALSE(ClassifyLeaks(input, LeakScanOptions(), &r, &error));
  EXPECT_EQ(memory.counts().calls, 0u);
}

}  // namespace
}  // namespace heaprec::recorder::leakscan
