// ThreadBlocks: Recent(t, d) names the same block as Block(t, count(t) - d
// + 1), the form the reader used before, on random streams of several
// threads: rings still growing, rings whole, past the window, after a
// Restore, and for threads that made nothing.
#include "format/thread_blocks.h"

#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace heaprec::format {
namespace {

// Block(t, count - d + 1), guarded as the reader guarded it.
uint64_t OldRecent(const ThreadBlocks& tb, uint32_t t, uint64_t d) {
  const uint64_t count = tb.count(t);
  return d > count ? 0 : tb.Block(t, count - d + 1);
}

void ExpectSame(const ThreadBlocks& tb, uint32_t threads, std::mt19937_64* rng, int probes) {
  std::uniform_int_distribution<uint64_t> depth(0, ThreadBlocks::kWindow + 10);
  for (int i = 0; i < probes; ++i) {
    const auto t = static_cast<uint32_t>((*rng)() % (threads + 2));  // some never made any
    const uint64_t d = i % 4 == 0 ? depth(*rng) : (*rng)() % 40;
    ASSERT_EQ(tb.Recent(t, d), OldRecent(tb, t, d)) << "thread " << t << " d " << d;
  }
}

TEST(ThreadBlocksTest, RecentIsBlockFromTheEnd) {
  std::mt19937_64 rng(12345);
  constexpr uint32_t kThreads = 5;
  ThreadBlocks tb;
  uint64_t made = 0;
  int checked_nonzero = 0;
  for (int step = 0; step < 30000; ++step) {
    // Thread 0 makes most, so that its ring wraps past kWindow.
    const auto t = static_cast<uint32_t>(rng() % 3 == 0 ? rng() % kThreads : 0);
    tb.Made(t, ++made);
    if (step % 97 == 0) {
      ExpectSame(tb, kThreads, &rng, 200);
      checked_nonzero += tb.Recent(0, 1) != 0;
    }
  }
  EXPECT_GT(checked_nonzero, 0);
  ASSERT_GT(tb.count(0), ThreadBlocks::kWindow);  // the window was passed
  EXPECT_NE(tb.Recent(0, ThreadBlocks::kWindow), 0u);
  EXPECT_EQ(tb.Recent(0, ThreadBlocks::kWindow + 1), 0u);

  // A reader's saved state, restored, answers the same.
  ThreadBlocks restored;
  tb.ForEachThread([&](uint32_t t, uint64_t count, const std::vector<uint64_t>& recent) {
    restored.Restore(t, count, recent);
  });
  for (uint32_t t = 0; t < kThreads + 2; ++t) {
    for (uint64_t d = 0; d <= ThreadBlocks::kWindow + 2; d += (d < 50 ? 1 : 97)) {
      ASSERT_EQ(restored.Recent(t, d), tb.Recent(t, d)) << "thread " << t << " d " << d;
      ASSERT_EQ(restored.Recent(t, d), OldRecent(restored, t, d));
    }
  }
  ExpectSame(restored, kThreads, &rng, 5000);
}

TEST(ThreadBlocksTest, CountsOnlyNamesNothing) {
  ThreadBlocks writer(/*keep_blocks=*/false);
  for (uint64_t b = 1; b <= 100; ++b) writer.Made(1, b);
  EXPECT_EQ(writer.count(1), 100u);
  for (uint64_t d = 0; d <= 101; ++d) EXPECT_EQ(writer.Recent(1, d), 0u);
}

TEST(ThreadBlocksTest, SmallRings) {
  ThreadBlocks tb;
  tb.Made(2, 7);
  tb.Made(2, 9);
  EXPECT_EQ(tb.Recent(2, 1), 9u);
  EXPECT_EQ(tb.Recent(2, 2), 7u);
  EXPECT_EQ(tb.Recent(2, 3), 0u);
  EXPECT_EQ(tb.Recent(2, 0), 0u);
  EXPECT_EQ(tb.Recent(3, 1), 0u);
  EXPECT_EQ(tb.Recent(1u << 20, 1), 0u);  // a sparse thread index never seen
  tb.Made(1u << 20, 11);
  EXPECT_EQ(tb.Recent(1u << 20, 1), 11u);
}

}  // namespace
}  // namespace heaprec::format
