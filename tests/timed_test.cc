// heaprec on tests/programs/timed.c: record times follow the clock across a
// 300 ms pause (the recorder takes them mostly from the launcher's published
// clock, recorder/preload/record_clock.h NowNs), and never go back within the thread.
#include <gtest/gtest.h>

#include "format/records.h"
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

// heaprec --precise-times on tests/programs/gapped.c (the main thread holds
// each of 200 blocks across 0.5 ms of spinning; a second thread sleeps 80 ms,
// then does the same 100 times): program times at 1 us, said so in the
// trace. The second thread's last block comes at least 80 + 49.5 ms after
// the main thread's first.
TEST(TimedTest, PreciseTimesAreProgramTimes) {
  const std::string dir = MakeTempDir("timed_precise");
  const ProcessResult run = RunProgram({Runfile("recorder/heaprec"), "-q", "--precise-times", "-o",
                                        dir + "/t.zst", "--", Runfile("tests/gapped")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const TraceSummary s = SummarizeTrace(dir + "/t.zst");
  ExpectConsistent(s);
  EXPECT_EQ(s.process.clock, format::kProgramTimeClock);
  const SiteStats* work = s.Site("work");
  ASSERT_NE(work, nullptr);
  EXPECT_EQ(work->allocations, 301u);
  EXPECT_GE(work->last_time_ns - work->first_time_ns, 120 * kMs);
  EXPECT_LT(work->last_time_ns - work->first_time_ns, 3000 * kMs);
  // The default: CLOCK_MONOTONIC at 1 ms.
  const TraceSummary d =
      RecordOneTrace("timed_default", {Runfile("tests/gapped")}, 0, std::nullopt);
  EXPECT_EQ(d.process.clock, "CLOCK_MONOTONIC");
  const SiteStats* dwork = d.Site("work");
  ASSERT_NE(dwork, nullptr);
  EXPECT_EQ(dwork->first_time_ns % kMs, 0u);
  EXPECT_EQ(dwork->last_time_ns % kMs, 0u);
}

}  // namespace
}  // namespace heaprec::tests
