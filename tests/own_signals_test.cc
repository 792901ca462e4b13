// heaprec on tests/programs/own_signals.c: the program's own SIGUSR2 handler
// (heaprec's default marker signal) gets its signals and no marker is
// recorded; its SIGSEGV handler recovers from a fault; a thread with every
// signal blocked is recorded like any other. Output, exit status and every
// allocation as without heaprec.
#include <gtest/gtest.h>

#include "format/api.h"
#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

using format::Api;

TEST(OwnSignalsTest, TheProgramsHandlersWin) {
  const TraceSummary s = RecordOneTrace("own_signals", {Runfile("tests/own_signals")}, 0,
                                        "own_signals: usr2 2, segv 1\n");
  EXPECT_TRUE(s.MarkerLabels().empty());
  ExpectSite(s, "in_between",
             {.calls = {{Api::kMalloc, 30}},
              .allocations = 30,
              .bytes = 480,
              .released_by = {{Api::kFree, 10}},
              .leaked_blocks = 20,
              .leaked_bytes = 320});
  ExpectSite(s, "blocked_thread_block",
             {.calls = {{Api::kMalloc, 5}},
              .allocations = 5,
              .bytes = 240,
              .released_by = {{Api::kFree, 5}}});
}

}  // namespace
}  // namespace heaprec::tests
