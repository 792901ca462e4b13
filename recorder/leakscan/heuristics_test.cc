// The four heuristics one by one, at and around their edges, and the vtable
// test over a segment map.
#include "recorder/leakscan/heuristics.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "recorder/leakscan/fake_memory.h"
#include "recorder/leakscan/vtable_oracle.h"

namespace heaprec::recorder::leakscan {
namespace {

constexpr uint64_t kBlock = 0x50000;

class AlwaysVtable : public VtableOracle {
 public:
  bool IsVtable(uint64_t address) override {
    ++calls;
    return address >= 0x400000;
  }
  int calls = 0;
};

class Heuristics : public ::testing::Test {
 protected:
  Heuristic Test(uint64_t value, uint64_t size, HeuristicSet set = HeuristicSet::All()) {
    const LiveBlock block{kBlock, size};
    auto word_at = [&](uint64_t a) {
      EXPECT_TRUE(IsBlockWord(block, a)) << a;
      if (unreadable_.count(a)) return BlockWord{};
      auto it = words_.find(a);
      return BlockWord{BlockWord::kValue, it == words_.end() ? 0 : it->second};
    };
    return TestHeuristics(set, value, block, word_at, &vtables_);
  }
  std::map<uint64_t, uint64_t> words_;
  std::map<uint64_t, bool> unreadable_;
  AlwaysVtable vtables_;
};

TEST_F(Heuristics, StdString) {
  words_[kBlock] = 40;      // length
  words_[kBlock + 8] = 40;  // capacity
  EXPECT_EQ(Test(kBlock + 24, 65), Heuristic::kStdString);
  EXPECT_EQ(Test(kBlock + 24, 66), Heuristic::kNone);  // 24 + 40 + 1 != 66
  EXPECT_EQ(Test(kBlock + 16, 65), Heuristic::kNone);
  words_[kBlock] = 41;  // length > capacity
  EXPECT_EQ(Test(kBlock + 24, 65), Heuristic::kNone);
  words_[kBlock] = 0;
  EXPECT_EQ(Test(kBlock + 24, 65), Heuristic::kStdString);
  EXPECT_EQ(Test(kBlock + 24, 65, HeuristicSet::None().With(Heuristic::kNewArray)),
            Heuristic::kNone);
}

TEST_F(Heuristics, Length64BeforeNewArray) {
  words_[kBlock] = 5;
  EXPECT_EQ(Test(kBlock + 8, 13), Heuristic::kLength64);  // new C1[5]
  EXPECT_EQ(Test(kBlock + 8, 13, HeuristicSet::None().With(Heuristic::kNewArray)),
            Heuristic::kNewArray);
  EXPECT_EQ(Test(kBlock + 8, 18), Heuristic::kNewArray);  // 10 % 5 == 0
  EXPECT_EQ(Test(kBlock + 8, 19), Heuristic::kNone);
  words_[kBlock] = 0;  // n > 0 is required
  EXPECT_EQ(Test(kBlock + 8, 8 + 0), Heuristic::kNone);
  EXPECT_EQ(Test(kBlock + 8, 40), Heuristic::kNone);
}

TEST_F(Heuristics, MultipleInheritance) {
  words_[kBlock] = 0x400100;       // primary vptr
  words_[kBlock + 16] = 0x400200;  // secondary vptr
  EXPECT_EQ(Test(kBlock + 16, 40), Heuristic::kMultipleInheritance);
  EXPECT_EQ(vtables_.calls, 2);
  EXPECT_EQ(Test(kBlock + 12, 40), Heuristic::kNone);  // not aligned
  EXPECT_EQ(Test(kBlock + 40 - 4, 40), Heuristic::kNone);
  EXPECT_EQ(Test(kBlock + 16, 20), Heuristic::kNone);  // the word at +16 is not inside
  words_[kBlock + 16] = 0x400204;                      // inner not aligned
  EXPECT_EQ(Test(kBlock + 16, 40), Heuristic::kNone);
  words_[kBlock + 16] = 0x200;  // below 4096
  EXPECT_EQ(Test(kBlock + 16, 40), Heuristic::kNone);
  words_[kBlock + 16] = 0x300000;  // not a vtable
  EXPECT_EQ(Test(kBlock + 16, 40), Heuristic::kNone);
}

TEST_F(Heuristics, AnUnreadableWordMeansNoneForAll) {
  // memcheck's fault catcher: the first fault ends heuristic_reachedness.
  // stdstring's capacity cannot be read: a readable length is not enough.
  words_[kBlock] = 40;
  unreadable_[kBlock + 8] = true;
  EXPECT_EQ(Test(kBlock + 24, 65), Heuristic::kNone);
  // length64 cannot read n: newarray is not tried.
  unreadable_.clear();
  unreadable_[kBlock] = true;
  EXPECT_EQ(Test(kBlock + 8, 48), Heuristic::kNone);
  // multipleinheritance reads the word at the pointer first.
  unreadable_.clear();
  words_[kBlock] = 0x400100;
  unreadable_[kBlock + 16] = true;
  EXPECT_EQ(Test(kBlock + 16, 40), Heuristic::kNone);
}

TEST(MayMatchHeuristic, FiltersBeforeAnyRead) {
  const LiveBlock b{kBlock, 64};
  const HeuristicSet all = HeuristicSet::All();
  EXPECT_TRUE(MayMatchHeuristic(all, false, kBlock + 8, b));
  EXPECT_TRUE(MayMatchHeuristic(all, false, kBlock + 24, b));
  EXPECT_FALSE(MayMatchHeuristic(all, false, kBlock + 16, b));
  EXPECT_TRUE(MayMatchHeuristic(all, true, kBlock + 16, b));
  EXPECT_FALSE(MayMatchHeuristic(all, true, kBlock + 60, b));
  EXPECT_FALSE(MayMatchHeuristic(HeuristicSet::None(), true, kBlock + 8, b));
}

// Segments: .text r-x file, .data.rel.ro r-- file, an anonymous rw mapping.
class VtableOracleTest : public ::testing::Test {
 protected:
  static constexpr uint64_t kText = 0x400000, kRelRo = 0x402000, kAnon = 0x600000;
  VtableOracleTest()
      : segments_({{kText, kText + 0x1000, true, true, true},
                   {kRelRo, kRelRo + 0x1000, true, true, false},
                   {kAnon, kAnon + 0x1000, true, false, true}}),
        oracle_(segments_, &memory_) {
    for (const Segment& s : segments_) memory_.Map(s.start, s.end - s.start);
  }
  std::vector<Segment> segments_;
  FakeMemory memory_;
  SegmentVtableOracle oracle_;
};

TEST_F(VtableOracleTest, TwoCodePointersFirst) {
  memory_.Write64(kRelRo + 0x100, kText + 0x10);
  memory_.Write64(kRelRo + 0x108, 0);  // nulls are skipped
  memory_.Write64(kRelRo + 0x110, kText + 0x20);
  EXPECT_TRUE(oracle_.IsVtable(kRelRo + 0x100));
  EXPECT_TRUE(oracle_.IsVtable(kRelRo + 0x100));
  EXPECT_EQ(oracle_.reads(), 1u);                        // cached
  EXPECT_FALSE(oracle_.IsVtable(kRelRo + 0x108 + 0x8));  // one code pointer, then zeros
}

TEST_F(VtableOracleTest, DataPointerFirstIsNo) {
  memory_.Write64(kRelRo + 0x200, kRelRo + 0x10);  // typeinfo
  memory_.Write64(kRelRo + 0x208, kText + 0x10);
  memory_.Write64(kRelRo + 0x210, kText + 0x20);
  EXPECT_FALSE(oracle_.IsVtable(kRelRo + 0x200));
  EXPECT_TRUE(oracle_.IsVtable(kRelRo + 0x208));
}

TEST_F(VtableOracleTest, MustLieInAReadableFileMapping) {
  memory_.Write64(kAnon + 0x100, kText + 0x10);
  memory_.Write64(kAnon + 0x108, kText + 0x20);
  EXPECT_FALSE(oracle_.IsVtable(kAnon + 0x100));
  EXPECT_FALSE(oracle_.IsVtable(0x900000));
  // Code pointers must point into a file mapping: the anonymous x one fails.
  memory_.Write64(kRelRo + 0x300, kAnon + 0x10);
  memory_.Write64(kRelRo + 0x308, kText + 0x20);
  EXPECT_FALSE(oracle_.IsVtable(kRelRo + 0x300));
}

TEST_F(VtableOracleTest, AtMostTwentyOneWordsAndNeverTheSegmentsLastWord) {
  // 20 zero words, then two code pointers: the 21st word is looked at, the
  // 22nd is not.
  memory_.Write64(kRelRo + 0x400 + 20 * 8, kText + 0x10);
  memory_.Write64(kRelRo + 0x400 + 21 * 8, kText + 0x20);
  EXPECT_FALSE(oracle_.IsVtable(kRelRo + 0x400));
  EXPECT_TRUE(oracle_.IsVtable(kRelRo + 0x400 + 8));
  // At the segment's end: its last word is not looked at.
  memory_.Write64(kRelRo + 0xff0, kText + 0x10);
  memory_.Write64(kRelRo + 0xff8, kText + 0x20);
  EXPECT_FALSE(oracle_.IsVtable(kRelRo + 0xff0));
  EXPECT_FALSE(oracle_.IsVtable(kRelRo + 0xff8));
}

TEST_F(VtableOracleTest, UnreadableTableIsNo) {
  memory_.Write64(kRelRo + 0x800, kText + 0x10);
  memory_.Write64(kRelRo + 0x808, kText + 0x20);
  memory_.MakeUnreadable(kRelRo, 0x1000);
  EXPECT_FALSE(oracle_.IsVtable(kRelRo + 0x800));
}

TEST(VtableOracle, CheckSegments) {
  EXPECT_EQ(SegmentVtableOracle::CheckSegments({{0x1000, 0x2000}, {0x2000, 0x3000}}), "");
  EXPECT_NE(SegmentVtableOracle::CheckSegments({{0x1000, 0x2000}, {0x1800, 0x3000}}), "");
  EXPECT_NE(SegmentVtableOracle::CheckSegments({{0x1000, 0x1000}}), "");
}

}  // namespace
}  // namespace heaprec::recorder::leakscan
