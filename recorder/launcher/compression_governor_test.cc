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

TEST(CompressionGovernorTest, StrongLevelWhileTheLauncherKeepsUpHoweverBusy) {
  CompressionGovernor g;
  uint64_t now = 1;
  g.Update(now, 0, 0);
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(Window(g, now, 0.0, 0)) << "window " << i;
}

TEST(CompressionGovernorTest, FastAfterOneWindowWithWaitsWhileSaturated) {
  CompressionGovernor g;
  uint64_t now = 1;
  g.Update(now, 0, 0);
  EXPECT_FALSE(Window(g, now, 0.5, 3));   // waits, busy 50%: a burst
  EXPECT_FALSE(Window(g, now, 0.3, 40));  // busy 70%: still a burst, however many
  EXPECT_FALSE(Window(g, now, 0.0, 0));   // saturated without waits: keeping up
  EXPECT_TRUE(Window(g, now, 0.1, 1));    // busy 90% and a wait: falling behind
}

TEST(CompressionGovernorTest, BurstsInARowStayStrong) {
  // python3.11-dbg: waits in windows in a row while the launcher was busy
  // 30-63% of the time.
  CompressionGovernor g;
  uint64_t now = 1;
  g.Update(now, 0, 0);
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(Window(g, now, 0.5, 2)) << "window " << i;
}

TEST(CompressionGovernorTest, BackToStrongWhenMostlyAsleepWithoutWaits) {
  CompressionGovernor g;
  uint64_t now = 1;
  g.Update(now, 0, 0);
  ASSERT_TRUE(Window(g, now, 0.0, 1));
  EXPECT_TRUE(Window(g, now, 0.3, 0));   // busy 70%: the strong level would not keep up
  EXPECT_TRUE(Window(g, now, 0.8, 2));   // waits: stays
  EXPECT_FALSE(Window(g, now, 0.8, 0));  // busy 20%, no waits
}

}  // namespace
}  // namespace heaprec::recorder::launcher
