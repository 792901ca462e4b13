// heaprec on tests/programs/timed.c: record times follow the clock across a
// 300 ms pause (the recorder takes them mostly from the launcher's published
// clock, recorder/preload/record_clock.h NowNs), and never go back within the thread.
#include <gtest/gtest.h>

#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

constexpr uint64_t kMs = 1000 * 1000;

TEST(TimedTest, RecordTimesFollowTheClockAcrossAPause) {
  const TraceSummary s = RecordOneTrace("timed", {Runfile("tests/timed")}, 0, "timed: ok\n");
  const SiteStats* before = s.Site("before_pause");
  const SiteStats* after = s.Site("after_pause");
  const SiteStats* burst = s.Site("burst");
  ASSERT_NE(before, nullptr);
  ASSERT_NE(after, nullptr);
  ASSERT_NE(burst, nullptr);
  EXPECT_EQ(burst->allocations, 2000u);
  // The trace keeps milliseconds; the coarse clock may trail by a tick and
  // the launcher's by its last round (more on a loaded machine): a frozen
  // clock would give ~0.
  EXPECT_GE(after->first_time_ns, before->first_time_ns + 200 * kMs)
      << before->first_time_ns << " " << after->first_time_ns;
  EXPECT_LT(after->first_time_ns, before->first_time_ns + 3000 * kMs);
  // The second burst comes after the pause, in time too.
  EXPECT_GE(burst->last_time_ns, after->first_time_ns);
  EXPECT_LE(burst->first_time_ns, before->first_time_ns + 100 * kMs);
}

}  // namespace
}  // namespace heaprec::tests
