// heaprec on tests/programs/churn.cc: 16 threads allocating and freeing at
// once, handing blocks to each other; and 3,000 threads created and gone, 15
// at a time. Nothing dropped, every call counted at its site, output and
// exit status as without heaprec. The test's timeout bounds a deadlock.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdint>
#include <set>

#include "format/api.h"
#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

using format::Api;

constexpr uint64_t kWorkers = 16;
constexpr uint64_t kCalls = 20000;
constexpr uint64_t kHandoffs = kWorkers * kCalls / 8;       // i % 8 == 7
constexpr uint64_t kChurn = kWorkers * kCalls - kHandoffs;  // the other calls

// Bytes of one worker's churn_block(i) calls: malloc(8 * (1 + i % 64)).
constexpr uint64_t ChurnBytesPerWorker() {
  uint64_t bytes = 0;
  for (uint64_t i = 0; i < kCalls; ++i) {
    if (i % 8 != 7) bytes += 8 * (1 + i % 64);
  }
  return bytes;
}

constexpr uint64_t kThreads = 3000;
constexpr uint64_t kKept = kThreads / 10;  // t % 10 == 0

// Runs churn in mode under heaprec; its one trace, checked whole.
TraceSummary RecordMode(const std::string& mode, const std::string& out) {
  const ProcessResult plain = RunProgram({Runfile("tests/churn"), mode});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out, out);
  TraceSummary s = RecordOneTrace("churn_" + mode, {Runfile("tests/churn"), mode}, 0, out);
  EXPECT_TRUE(WIFEXITED(s.end.exit_status) && WEXITSTATUS(s.end.exit_status) == 0)
      << s.end.exit_status;
  EXPECT_EQ(s.unmatched_frees, 0u) << s.ToString();
  return s;
}

TEST(ChurnTest, SixteenThreadsAllocateAndHandOverAtOnce) {
  const TraceSummary s =
      RecordMode("concurrent", "churn: 16 workers, 20000 calls each, 40000 handed over\n");
  static_assert(kChurn == 280000 && kHandoffs == 40000);
  static_assert(ChurnBytesPerWorker() == 4476416);
  ExpectSite(s, "churn_block(int)",
             {.calls = {{Api::kMalloc, kChurn}},
              .allocations = kChurn,
              .bytes = kWorkers * ChurnBytesPerWorker(),
              .released_by = {{Api::kFree, kChurn}}});
  ExpectSite(s, "handoff_block()",
             {.calls = {{Api::kCalloc, kHandoffs}},
              .allocations = kHandoffs,
              .bytes = kHandoffs * 48,
              .released_by = {{Api::kFree, kHandoffs}}});
  const SiteStats* churn = s.Site("churn_block(int)");
  const SiteStats* handoff = s.Site("handoff_block()");
  ASSERT_NE(churn, nullptr);
  ASSERT_NE(handoff, nullptr);
  EXPECT_EQ(churn->cross_thread_releases, 0u);
  EXPECT_EQ(handoff->cross_thread_releases, kHandoffs);
  EXPECT_EQ(churn->threads.size(), kWorkers);
  EXPECT_EQ(handoff->threads.size(), kWorkers);
  EXPECT_EQ(s.threads.size(), kWorkers + 1);  // and main
}

TEST(ChurnTest, ThousandsOfThreadsComeAndGo) {
  const TraceSummary s =
      RecordMode("lifecycle", "churn: 3000 threads, 15 at a time, 300 kept blocks\n");
  ExpectSite(s, "transient_block()",
             {.calls = {{Api::kMalloc, kThreads}},
              .allocations = kThreads,
              .bytes = kThreads * 24,
              .released_by = {{Api::kFree, kThreads}}});
  ExpectSite(s, "kept_block()",
             {.calls = {{Api::kMalloc, kThreads}},
              .allocations = kThreads,
              .bytes = kThreads * 100,
              .released_by = {{Api::kFree, kThreads - kKept}},
              .leaked_blocks = kKept,
              .leaked_bytes = kKept * 100});
  ExpectSite(s, "result_block(int)",
             {.calls = {{Api::kMalloc, kThreads}},
              .allocations = kThreads,
              .bytes = kThreads * 16,
              .released_by = {{Api::kFree, kThreads}}});
  // Each block is freed where the source says: by its thread, or by main.
  const SiteStats* transient = s.Site("transient_block()");
  const SiteStats* kept = s.Site("kept_block()");
  const SiteStats* results = s.Site("result_block(int)");
  ASSERT_NE(transient, nullptr);
  ASSERT_NE(kept, nullptr);
  ASSERT_NE(results, nullptr);
  EXPECT_EQ(transient->cross_thread_releases, 0u);
  EXPECT_EQ(kept->cross_thread_releases, 0u);
  EXPECT_EQ(results->cross_thread_releases, kThreads);
  // A thread gets a ring of its own, a retired one once the launcher has
  // drained it, so each is a thread of the trace: main and the 3,000. (Had
  // all 511 been taken at once, the others would have shared ring 0, and
  // one trace thread.)
  if (s.Counter("shared_ring_records") == 0) {
    EXPECT_EQ(s.threads.size(), kThreads + 1);
    EXPECT_EQ(transient->threads.size(), kThreads);
  }
}

}  // namespace
}  // namespace heaprec::tests
