// ThreadClock: the default times come from the launcher's published clock;
// --precise-times records program time, the clock less the thread's time
// inside hooks.
#include "recorder/preload/record_clock.h"

#include <gtest/gtest.h>
#include <time.h>

#include <memory>

namespace heaprec::recorder::preload {
namespace {

constexpr uint64_t kMs = 1000 * 1000;

uint64_t Monotonic() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

void Spin(uint64_t ns) {
  const uint64_t end = Monotonic() + ns;
  while (Monotonic() < end) {
  }
}

std::unique_ptr<RegionHeader> Header() {
  auto h = std::make_unique<RegionHeader>();
  h->start_monotonic_ns = Monotonic();
  h->launcher_clock_ns.store(0, std::memory_order_relaxed);
  return h;
}

TEST(RecordClock, DefaultTimesAreTheLaunchersClock) {
  const auto h = Header();
  ThreadClock c{};
  StartClock(*h, c, false);
  h->launcher_clock_ns.store(123 * kMs, std::memory_order_relaxed);
  EXPECT_EQ(NowNs(*h, c), 123 * kMs);
  // A launcher clock that goes back never moves a thread's times back.
  h->launcher_clock_ns.store(100 * kMs, std::memory_order_relaxed);
  EXPECT_EQ(NowNs(*h, c), 123 * kMs);
  // Every 64th call reads the coarse clock itself: a launcher clock that
  // stands still (far behind) holds times back by at most 64 records.
  for (int i = 0; i < 64; ++i) NowNs(*h, c);
  EXPECT_EQ(NowNs(*h, c), 123 * kMs) << "the coarse clock is only ~0 ms into the region";
  h->start_monotonic_ns -= 1000 * kMs;  // the region began 1 s earlier
  for (int i = 0; i < 64; ++i) NowNs(*h, c);
  EXPECT_GE(NowNs(*h, c), 1000 * kMs - 10 * kMs);
}

// Two hooks of 100 ms each around 10 ms of the program's own work: the
// second record's time is 10 ms after the first's (less a clock read's cost
// per hook), not 110, and the launcher's clock plays no part. The hooks are
// long so that a preemption on a loaded machine (tests run in parallel on
// two cores) cannot pass for the first hook's time.
TEST(RecordClock, PreciseTimesLeaveOutTheTimeInsideHooks) {
  const auto h = Header();
  h->launcher_clock_ns.store(1, std::memory_order_relaxed);
  ThreadClock c{};
  StartClock(*h, c, true);
  EXPECT_LT(c.read_ns,
            kMs);  // a vDSO read (~20 ns unless preempted); 0 only if the clock did not move
  HookBegins(*h, c);
  const uint64_t first = NowNs(*h, c);
  Spin(100 * kMs);  // the real call and the recording
  HookEnds(*h, c);
  Spin(10 * kMs);  // the program's work
  HookBegins(*h, c);
  const uint64_t second = NowNs(*h, c);
  Spin(100 * kMs);
  HookEnds(*h, c);
  EXPECT_GE(second - first + c.read_ns, 10 * kMs);
  // A loaded machine stretches the spins: the hooks' 100 ms may read as more,
  // and so may the work; less than the hook's 100 ms it must stay.
  EXPECT_LT(second - first, 100 * kMs) << "the first hook's time was counted";
  EXPECT_GE(c.hooks_ns, 200 * kMs);
  // Records in the same hook share its start.
  HookBegins(*h, c);
  const uint64_t third = NowNs(*h, c);
  EXPECT_EQ(NowNs(*h, c), third);
  EXPECT_GE(third, second);
  EXPECT_LT(third - second, 100 * kMs);
}

}  // namespace
}  // namespace heaprec::recorder::preload
