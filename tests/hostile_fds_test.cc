// heaprec on tests/programs/hostile_fds.c: a program that closes every file
// descriptor, puts /dev/null on 0-2, lowers RLIMIT_NOFILE and changes
// directory keeps being recorded (the region is mapped, not a descriptor),
// with its output and exit status unchanged and every allocation counted.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include "format/api.h"
#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

using format::Api;

TEST(HostileFdsTest, ClosedDescriptorsLowLimitAndChdir) {
  const TraceSummary s = RecordOneTrace("hostile_fds", {Runfile("tests/hostile_fds")}, 7,
                                        "hostile_fds: 100 blocks, 5 kept\n");
  EXPECT_TRUE(WIFEXITED(s.end.exit_status)) << s.end.exit_status;
  EXPECT_EQ(WEXITSTATUS(s.end.exit_status), 7);
  ExpectSite(s, "fd_churn",
             {.calls = {{Api::kMalloc, 100}},
              .allocations = 100,
              .bytes = 2400,
              .released_by = {{Api::kFree, 95}},
              .leaked_blocks = 5,
              .leaked_bytes = 120});
}

}  // namespace
}  // namespace heaprec::tests
