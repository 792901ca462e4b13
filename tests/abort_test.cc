// heaprec on tests/programs/abort.c: a program killed by SIGABRT still gets a
// readable trace with everything it did, and heaprec exits 128 + 6.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include "format/api.h"
#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

using format::Api;

TEST(AbortTest, TraceHoldsEverythingBeforeTheAbort) {
  const Recording r = Record("abort", {Runfile("tests/abort")});
  EXPECT_EQ(r.run.exit_code, 128 + SIGABRT) << r.run.err;
  ASSERT_EQ(r.traces.size(), 1u) << Join(r.traces) << "\n" << r.run.err;
  const TraceSummary s = SummarizeTrace(r.traces[0]);
  // The launcher outlives the program, so the trace is complete, End and all.
  ExpectConsistent(s);
  EXPECT_TRUE(WIFSIGNALED(s.end.exit_status)) << s.end.exit_status;
  EXPECT_EQ(WTERMSIG(s.end.exit_status), SIGABRT);
  ExpectSite(s, "abort_alloc",
             {.calls = {{Api::kMalloc, 1000}},
              .allocations = 1000,
              .bytes = 64000,
              .leaked_blocks = 1000,
              .leaked_bytes = 64000});
}

}  // namespace
}  // namespace heaprec::tests
