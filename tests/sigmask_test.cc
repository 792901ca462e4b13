// heaprec on tests/programs/sigmask.c: the program's signal mask, its
// sigprocmask errors and a signal held while blocked are all as without
// heaprec, although libheaprec answers libunwind's sigprocmask calls itself
// during slow captures (recorder/preload/signal_hold.h); and every
// allocation made meanwhile is recorded.
#include <gtest/gtest.h>

#include "format/api.h"
#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

using format::Api;

TEST(SigmaskTest, MaskErrorsAndPendingSignalAsWithoutHeaprec) {
  const TraceSummary s = RecordOneTrace("sigmask", {Runfile("tests/sigmask")}, 0, "sigmask: ok\n");
  ExpectSite(s, "deep_alloc",
             {.calls = {{Api::kMalloc, 20}},
              .allocations = 20,
              .bytes = 20 * 48,
              .released_by = {{Api::kFree, 20}}});
}

TEST(SigmaskTest, RunsWithoutHeaprec) {
  const ProcessResult plain = RunProgram({Runfile("tests/sigmask")});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out, "sigmask: ok\n");
}

}  // namespace
}  // namespace heaprec::tests
