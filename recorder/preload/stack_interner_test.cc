// The shared stack table: one id per distinct stack, also when many threads
// insert the same stacks at once, and the launcher reads back what was stored.
#include "recorder/preload/stack_interner.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <set>
#include <thread>
#include <vector>

#include "recorder/shared/private_region.h"

namespace heaprec::recorder::preload {
namespace {

using Region = PrivateRegion;

TEST(StackInternerTest, SameStackSameIdDifferentStackDifferentId) {
  Region r;
  const uint64_t a[] = {0x10, 0x20, 0x30};
  const uint64_t b[] = {0x10, 0x20, 0x31};
  bool inserted = false;
  const uint32_t ia = InternStack(r.view(), a, 3, &inserted);
  EXPECT_TRUE(inserted);
  inserted = false;
  EXPECT_EQ(InternStack(r.view(), a, 3, &inserted), ia);
  EXPECT_FALSE(inserted);
  const uint32_t ib = InternStack(r.view(), b, 3, &inserted);
  EXPECT_NE(ia, ib);
  EXPECT_NE(InternStack(r.view(), a, 2, &inserted), ia);  // a prefix is another stack
  EXPECT_NE(ia, 0u);
  // The entry holds depth and frames, innermost first.
  const uint64_t* entry = r.view().stack_arena() + ia;
  EXPECT_EQ(entry[1], 3u);
  EXPECT_EQ(entry[kStackEntryHeaderWords + 2], 0x30u);
}

TEST(StackInternerTest, AnEntryWithTheSameHashIsComparedFrameByFrame) {
  // As a hash collision would have it: the entry's hash and depth match, one
  // frame differs, at every position of stacks 1 to 13 deep (the comparison
  // goes four frames at a time, then one by one).
  Region r;
  for (uint32_t depth = 1; depth <= 13; ++depth) {
    std::vector<uint64_t> s(depth);
    for (uint32_t i = 0; i < depth; ++i) s[i] = 0x400000 + depth * 4096 + i * 16;
    bool inserted = false;
    const uint32_t id = InternStack(r.view(), s.data(), depth, &inserted);
    ASSERT_NE(id, 0u);
    const uint64_t hash = HashFrames(s.data(), depth);
    EXPECT_TRUE(StackEntryEquals(r.view(), id, s.data(), depth, hash));
    for (uint32_t i = 0; i < depth; ++i) {
      for (const uint64_t bit : {uint64_t{1}, uint64_t{1} << 40}) {
        std::vector<uint64_t> t = s;
        t[i] ^= bit;
        EXPECT_FALSE(StackEntryEquals(r.view(), id, t.data(), depth, hash))
            << "depth " << depth << " frame " << i;
      }
    }
  }
}

TEST(StackInternerTest, ConcurrentInsertsAgreeOnIds) {
  Region r;
  constexpr int kThreads = 4, kStacks = 2000;
  std::vector<std::vector<uint32_t>> ids(kThreads, std::vector<uint32_t>(kStacks));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kStacks; ++i) {
        const uint64_t frames[] = {0x1000u + static_cast<uint64_t>(i), 0x2000, 0x3000};
        bool inserted = false;
        ids[t][i] = InternStack(r.view(), frames, 3, &inserted);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::set<uint32_t> distinct;
  for (int i = 0; i < kStacks; ++i) {
    for (int t = 1; t < kThreads; ++t) ASSERT_EQ(ids[t][i], ids[0][i]) << i;
    ASSERT_NE(ids[0][i], 0u);
    distinct.insert(ids[0][i]);
  }
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kStacks));
}

bool EntryHolds(const RegionView& region, uint32_t id, const uint64_t* frames, uint32_t depth) {
  const uint64_t* entry = region.stack_arena() + id;
  if (id == 0 || entry[1] != depth) return false;
  for (uint32_t i = 0; i < depth; ++i) {
    if (entry[kStackEntryHeaderWords + i] != frames[i]) return false;
  }
  return true;
}

TEST(StackInternerTest, TheIndexGrowsAndEveryIdStillHoldsItsStack) {
  // Enough stacks to fill levels 0..3 past half (16K, 32K, 64K, 128K slots).
  Region r;
  constexpr uint32_t kStacks = 200000;
  std::vector<uint32_t> first(kStacks);
  bool inserted = false;
  for (uint32_t i = 0; i < kStacks; ++i) {
    const uint64_t frames[] = {0x1000u + i, 0x2000u + i % 97, 0x3000};
    first[i] = InternStack(r.view(), frames, 3, &inserted);
    ASSERT_TRUE(EntryHolds(r.view(), first[i], frames, 3)) << i;
  }
  const uint32_t level = r.view().header()->stack_index_level.load();
  EXPECT_EQ(level, 3u);  // 16K + 32K + 64K stored below, 88K at level 3
  // Stacks of the previous level move up with their ids (30K of them: level
  // 3 stays under half full).
  for (uint32_t i = 70000; i < 100000; ++i) {
    const uint64_t frames[] = {0x1000u + i, 0x2000u + i % 97, 0x3000};
    inserted = false;
    ASSERT_EQ(InternStack(r.view(), frames, 3, &inserted), first[i]) << i;
    ASSERT_FALSE(inserted) << i;
  }
  EXPECT_EQ(r.view().header()->stack_index_level.load(), level);
  // Asked again, pass after pass: every answer holds the stack; a stack met
  // before a growth is stored again (which may grow the index again), until
  // a pass stores nothing and the next one gives the very same ids.
  std::vector<uint32_t> ids(kStacks);
  bool settled = false;
  for (uint32_t pass = 0; pass <= kStackIndexLevels && !settled; ++pass) {
    settled = true;
    for (uint32_t i = 0; i < kStacks; ++i) {
      const uint64_t frames[] = {0x1000u + i, 0x2000u + i % 97, 0x3000};
      inserted = false;
      ids[i] = InternStack(r.view(), frames, 3, &inserted);
      ASSERT_TRUE(EntryHolds(r.view(), ids[i], frames, 3)) << i << " pass " << pass;
      settled &= !inserted;
    }
  }
  ASSERT_TRUE(settled);
  for (uint32_t i = 0; i < kStacks; ++i) {
    const uint64_t frames[] = {0x1000u + i, 0x2000u + i % 97, 0x3000};
    ASSERT_EQ(InternStack(r.view(), frames, 3, &inserted), ids[i]) << i;
  }
  EXPECT_GT(r.view().header()->stack_index_level.load(), level);
}

}  // namespace
}  // namespace heaprec::recorder::preload
