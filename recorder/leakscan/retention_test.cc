// Retaining roots: who holds each still reachable block. Each global here is
// its own root (its own id), as the launcher names a variable's range.
#include <gtest/gtest.h>

#include <vector>

#include "recorder/leakscan/leak_graph.h"
#include "recorder/leakscan/synthetic_process.h"

namespace heaprec::recorder::leakscan {
namespace {

class Retention : public ::testing::Test {
 protected:
  // A global that is root `id`.
  uint64_t Root(RootId id) {
    const uint64_t g = p_.Global();
    ranges_.push_back({g, g + 8, id});
    return g;
  }
  LeakScanResult Scan() {
    p_.SetRootRanges(ranges_);
    return p_.Scan();
  }
  RootId Holder(const LeakScanResult& r, uint64_t block) {
    return r.retaining_root[p_.IndexOf(block)];
  }
  Totals RetainedBy(const LeakScanResult& r, RootId id) {
    for (const RootRetained& x : r.retained_by_root) {
      if (x.root == id) return x.retained;
    }
    return {};
  }

  SyntheticProcess p_;
  std::vector<RootRange> ranges_;
};

TEST_F(Retention, OneGlobal) {
  const uint64_t a = p_.Malloc(16);
  p_.Set(Root(7), a);
  const LeakScanResult r = Scan();
  EXPECT_EQ(Holder(r, a), 7u);
  EXPECT_EQ(RetainedBy(r, 7).bytes, 16u);
  EXPECT_EQ(r.retained_by_several.blocks, 0u);
}

TEST_F(Retention, TwoGlobalsHoldingOneBlockIsSeveral) {
  const uint64_t a = p_.Malloc(16);
  p_.Set(Root(1), a);
  p_.Set(Root(2), a);
  const LeakScanResult r = Scan();
  EXPECT_EQ(Holder(r, a), kSeveralRoots);
  EXPECT_EQ(RetainedBy(r, 1).blocks, 0u);
  EXPECT_EQ(RetainedBy(r, 2).blocks, 0u);
  EXPECT_EQ(r.retained_by_several.bytes, 16u);
  EXPECT_EQ(r.retained_by_several.blocks, 1u);
}

TEST_F(Retention, TwoPiecesWithOneIdAreOneRoot) {
  const uint64_t a = p_.Malloc(16);
  p_.Set(Root(3), a);
  Root(4);
  p_.Set(Root(3), a);
  const LeakScanResult r = Scan();
  EXPECT_EQ(Holder(r, a), 3u);
}

TEST_F(Retention, AChainIsRetainedWhole) {
  const uint64_t a = p_.Malloc(24), b = p_.Malloc(40), c = p_.Malloc(56);
  p_.Set(Root(5), a);
  p_.Set(a + 8, b);
  p_.Set(b + 16, c);
  const LeakScanResult r = Scan();
  for (const uint64_t x : {a, b, c}) EXPECT_EQ(Holder(r, x), 5u);
  EXPECT_EQ(RetainedBy(r, 5).bytes, 120u);
  EXPECT_EQ(RetainedBy(r, 5).blocks, 3u);
}

TEST_F(Retention, DiamondUnderOneRoot) {
  // R -> A; A -> B, A -> C; B -> D, C -> D.
  const uint64_t a = p_.Malloc(16), b = p_.Malloc(16), c = p_.Malloc(16), d = p_.Malloc(16);
  p_.Set(Root(1), a);
  p_.Set(a, b);
  p_.Set(a + 8, c);
  p_.Set(b, d);
  p_.Set(c, d);
  const LeakScanResult r = Scan();
  for (const uint64_t x : {a, b, c, d}) EXPECT_EQ(Holder(r, x), 1u);
  EXPECT_EQ(RetainedBy(r, 1).blocks, 4u);
}

TEST_F(Retention, DiamondUnderTwoRoots) {
  // R1 -> A -> C, R2 -> B -> C: C needs neither root alone.
  const uint64_t a = p_.Malloc(16), b = p_.Malloc(16), c = p_.Malloc(32);
  p_.Set(Root(1), a);
  p_.Set(Root(2), b);
  p_.Set(a, c);
  p_.Set(b, c);
  const LeakScanResult r = Scan();
  EXPECT_EQ(Holder(r, a), 1u);
  EXPECT_EQ(Holder(r, b), 2u);
  EXPECT_EQ(Holder(r, c), kSeveralRoots);
  EXPECT_EQ(r.retained_by_several.bytes, 32u);
}

TEST_F(Retention, CycleUnderOneRoot) {
  const uint64_t a = p_.Malloc(16), b = p_.Malloc(16), c = p_.Malloc(16);
  p_.Set(Root(9), b);
  p_.Set(a, b);
  p_.Set(b, c);
  p_.Set(c, a);
  const LeakScanResult r = Scan();
  for (const uint64_t x : {a, b, c}) EXPECT_EQ(Holder(r, x), 9u);
}

TEST_F(Retention, CycleEnteredFromTwoRoots) {
  const uint64_t a = p_.Malloc(16), b = p_.Malloc(16);
  p_.Set(Root(1), a);
  p_.Set(Root(2), b);
  p_.Set(a, b);
  p_.Set(b, a);
  const LeakScanResult r = Scan();
  EXPECT_EQ(Holder(r, a), kSeveralRoots);
  EXPECT_EQ(Holder(r, b), kSeveralRoots);
}

TEST_F(Retention, HeuristicPointersAreStrong) {
  const uint64_t arr = p_.Malloc(40);
  p_.Set(arr, 4);  // new C8[4]
  p_.Set(Root(1), arr + 8);
  const LeakScanResult r = Scan();
  EXPECT_EQ(Holder(r, arr), 1u);
}

TEST_F(Retention, InteriorPointersDoNotHold) {
  // R1 -> A; A holds B+12 (weak); R2 -> B: B is R2's alone.
  const uint64_t a = p_.Malloc(16), b = p_.Malloc(32);
  p_.Set(Root(1), a);
  p_.Set(Root(2), b);
  p_.Set(a, b + 12);
  const LeakScanResult r = Scan();
  EXPECT_EQ(Holder(r, a), 1u);
  EXPECT_EQ(Holder(r, b), 2u);
}

TEST_F(Retention, PossibleBlocksDoNotHold) {
  // R1 -> A+12 makes A possibly lost; A's start pointer to B does not count;
  // R2 -> B holds B alone. A has no retaining root.
  const uint64_t a = p_.Malloc(32), b = p_.Malloc(16);
  p_.Set(Root(1), a + 12);
  p_.Set(Root(2), b);
  p_.Set(a, b);
  const LeakScanResult r = Scan();
  EXPECT_EQ(r.verdicts[p_.IndexOf(a)].kind, LeakKind::kPossiblyLost);
  EXPECT_EQ(Holder(r, a), kNoRoot);
  EXPECT_EQ(Holder(r, b), 2u);
  EXPECT_EQ(RetainedBy(r, 1).blocks, 0u);
}

TEST_F(Retention, RegistersAreRoots) {
  const uint64_t a = p_.Malloc(16), b = p_.Malloc(16);
  p_.Set(Root(1), b);
  p_.AddRegister(a, 100);
  p_.AddRegister(b, 100);
  const LeakScanResult r = Scan();
  EXPECT_EQ(Holder(r, a), 100u);
  EXPECT_EQ(Holder(r, b), kSeveralRoots);
}

TEST_F(Retention, LostBlocksHaveNoRoot) {
  const uint64_t a = p_.Malloc(16), b = p_.Malloc(16);
  p_.Set(Root(1), a);
  p_.Set(b, a);  // b is lost, its pointer to a does not matter
  const LeakScanResult r = Scan();
  EXPECT_EQ(Holder(r, a), 1u);
  EXPECT_EQ(Holder(r, b), kNoRoot);
}

TEST_F(Retention, OffMeansEmpty) {
  p_.Set(Root(1), p_.Malloc(16));
  p_.SetRootRanges(ranges_);
  LeakScanOptions options;
  options.retention = false;
  const LeakScanResult r = p_.Scan(options);
  EXPECT_TRUE(r.retaining_root.empty());
  EXPECT_TRUE(r.retained_by_root.empty());
}

}  // namespace
}  // namespace heaprec::recorder::leakscan
