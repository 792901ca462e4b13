// CompressionGovernor: when the launcher's traces switch to the fast level
// and back.
#include "recorder/launcher/compression_governor.h"

#include <gtest/gtest.h>

namespace heaprec::recorder::launcher {
namespace {

constexpr uint64_t kMs = 1000 * 1000;
constexpr uint64_t kWindow = CompressionGovernor::kWindowNs;

// Feeds one whole window in 10 ms turns, with slept_share of it asleep and
// waits producer waits in its first turn; returns the last answer.
bool Window(CompressionGovernor& g, uint64_t& now, double slept_share, uint64_t waits) {
  bool fast = g.fast();
  for (uint64_t t = 0; t < kWindow; t += 10 * kMs) {
    now += 10 * kMs;
    fast = g.Update(now, static_cast<uint64_t>(10 * kMs * slept_share), t == 0 ? waits : 0);
  }
  return fast;
}

CompressionGovernor Started(uint64_t& now) {
  CompressionGovernor g;
  now = 1;
  g.Update(now, 0, 0);
  return g;
}

TEST(CompressionGovernorTest, StrongLevelWhileTheLauncherKeepsUpHoweverBusy) {
  uint64_t now;
  CompressionGovernor g = Started(now);
  for (int i = 0; i < 20; ++i) EXPECT_FALSE(Window(g, now, 0.0, 0)) << "window " << i;
}

TEST(CompressionGovernorTest, FastAfterSaturatedWindowsInARow) {
  static_assert(CompressionGovernor::kToFast == 2);
  uint64_t now;
  CompressionGovernor g = Started(now);
  EXPECT_FALSE(Window(g, now, 0.05, 8));  // a start's burst: one window
  EXPECT_FALSE(Window(g, now, 0.25, 2));  // busy 75%: keeping up again
  EXPECT_FALSE(Window(g, now, 0.1, 6));
  EXPECT_TRUE(Window(g, now, 0.0, 6));  // the second in a row: falling behind
}

TEST(CompressionGovernorTest, BurstsWhileMostlyAsleepStayStrong) {
  // python3.11-dbg: waits in windows in a row while the launcher was busy
  // 25-54% of the time.
  uint64_t now;
  CompressionGovernor g = Started(now);
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(Window(g, now, 0.5, 2)) << "window " << i;
  // Saturated, but no program thread waited: the launcher keeps up.
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(Window(g, now, 0.0, 0)) << "window " << i;
}

TEST(CompressionGovernorTest, BackToStrongAfterCalmWindowsInARow) {
  static_assert(CompressionGovernor::kToStrong == 4);
  uint64_t now;
  CompressionGovernor g = Started(now);
  Window(g, now, 0.0, 1);
  ASSERT_TRUE(Window(g, now, 0.0, 1));
  EXPECT_TRUE(Window(g, now, 0.3, 0));  // busy 70%: the strong level would not keep up
  EXPECT_TRUE(Window(g, now, 0.8, 0));  // calm: 1
  EXPECT_TRUE(Window(g, now, 0.8, 0));  // 2
  EXPECT_TRUE(Window(g, now, 0.8, 2));  // waits: the run starts again
  EXPECT_TRUE(Window(g, now, 0.8, 0));
  EXPECT_TRUE(Window(g, now, 0.8, 0));
  EXPECT_TRUE(Window(g, now, 0.8, 0));
  EXPECT_FALSE(Window(g, now, 0.8, 0));  // the fourth calm window in a row
  // And fast again only after kToFast saturated windows.
  EXPECT_FALSE(Window(g, now, 0.0, 3));
  EXPECT_TRUE(Window(g, now, 0.0, 3));
}

}  // namespace
}  // namespace heaprec::recorder::launcher
