// BlockMap against std::map on the patterns a trace makes (sequential
// numbers, most blocks short-lived, some outliving the nursery many times
// over) and on hand-made ones (any order, repeated numbers).
#include "analyzers/block_map.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

namespace heaprec::analyzers {
namespace {

void ExpectSame(const BlockMap<>& m, const std::map<uint64_t, LiveBlock>& want) {
  ASSERT_EQ(m.size(), want.size());
  std::map<uint64_t, LiveBlock> got;
  m.ForEach([&](uint64_t id, const LiveBlock& b) { got[id] = b; });
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [id, b] : want) {
    ASSERT_TRUE(got.count(id)) << id;
    EXPECT_EQ(got[id].size, b.size) << id;
    EXPECT_EQ(got[id].stack, b.stack) << id;
  }
}

TEST(BlockMapTest, SequentialNumbersWithLongAndShortLives) {
  BlockMap<> m;
  std::map<uint64_t, LiveBlock> want;
  std::mt19937_64 rng(3);
  std::vector<uint64_t> live;
  const uint64_t n = 5 * BlockMap<>::kNursery;
  for (uint64_t id = 1; id <= n; ++id) {
    const LiveBlock b{id * 3, static_cast<uint32_t>(id % 97), format::Api::kMalloc};
    LiveBlock old;
    ASSERT_FALSE(m.Put(id, b, &old)) << id;
    want[id] = b;
    live.push_back(id);
    // Free one live block most of the time: the newest (temporaries) or any
    // (some survive several trips round the nursery).
    if (rng() % 4 != 0 && !live.empty()) {
      const size_t i = rng() % 3 == 0 ? rng() % live.size() : live.size() - 1;
      LiveBlock out;
      ASSERT_TRUE(m.Take(live[i], &out)) << live[i];
      EXPECT_EQ(out.size, live[i] * 3);
      want.erase(live[i]);
      live[i] = live.back();
      live.pop_back();
    }
  }
  ExpectSame(m, want);
  LiveBlock out;
  EXPECT_FALSE(m.Take(n + 1, &out));
  EXPECT_FALSE(m.Take(0, &out));
  for (uint64_t id : live) ASSERT_TRUE(m.Take(id, &out)) << id;
  EXPECT_EQ(m.size(), 0u);
}

TEST(BlockMapTest, AnyOrderAndRepeatedNumbers) {
  BlockMap<> m;
  std::map<uint64_t, LiveBlock> want;
  std::mt19937_64 rng(5);
  for (int i = 0; i < 200000; ++i) {
    const uint64_t id = 1 + rng() % (4 * BlockMap<>::kNursery);
    LiveBlock out;
    if (rng() % 3 == 0) {
      EXPECT_EQ(m.Take(id, &out), want.erase(id) == 1) << id;
    } else {
      const LiveBlock b{static_cast<uint64_t>(i), 1, format::Api::kNew};
      const bool had = want.count(id) != 0;
      const uint64_t had_size = had ? want[id].size : 0;
      EXPECT_EQ(m.Put(id, b, &out), had) << id;
      if (had) {
        EXPECT_EQ(out.size, had_size);
      }
      want[id] = b;
    }
  }
  ExpectSame(m, want);
}

}  // namespace
}  // namespace heaprec::analyzers
