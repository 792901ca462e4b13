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

}  // namespace
}  // namespace heaprec::recorder::preload
