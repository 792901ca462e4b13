// heaprec on tests/programs/exits.c: exit from a non-main thread, _exit,
// and allocations made by an exit handler. Each leaves a complete trace with
// every allocation, and heaprec exits with the program's status.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include "format/api.h"
#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

using format::Api;

TraceSummary RecordMode(const std::string& mode, int status, const std::string& out) {
  TraceSummary s = RecordOneTrace("exits_" + mode, {Runfile("tests/exits"), mode}, status, out);
  EXPECT_TRUE(WIFEXITED(s.end.exit_status)) << s.end.exit_status;
  EXPECT_EQ(WEXITSTATUS(s.end.exit_status), status);
  ExpectSite(s, "before_exit",
             {.calls = {{Api::kMalloc, 50}},
              .allocations = 50,
              .bytes = 2000,
              .released_by = {{Api::kFree, 20}},
              .leaked_blocks = 30,
              .leaked_bytes = 1200});
  return s;
}

TEST(ExitsTest, ExitFromANonMainThread) {
  const TraceSummary s = RecordMode("thread", 5, "exits: thread\n");
  ExpectSite(s, "in_thread",
             {.calls = {{Api::kMalloc, 10}},
              .allocations = 10,
              .bytes = 560,
              .leaked_blocks = 10,
              .leaked_bytes = 560});
}

TEST(ExitsTest, UnderscoreExit) { RecordMode("_exit", 6, "exits: _exit\n"); }

TEST(ExitsTest, AllocationsDuringExit) {
  const TraceSummary s = RecordMode("static", 4, "exits: static\n");
  ExpectSite(s, "at_exit_handler_block",
             {.calls = {{Api::kMalloc, 3}},
              .allocations = 3,
              .bytes = 216,
              .leaked_blocks = 3,
              .leaked_bytes = 216});
}

}  // namespace
}  // namespace heaprec::tests
