// heaprec on tests/programs/exec.c, which execs tests/programs/exec_target.c:
// each image of the process gets a trace of its own with its own sites; the
// exit status belongs to the image that exited.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include "format/api.h"
#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

using format::Api;

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

TEST(ExecTest, EachImageHasItsOwnTrace) {
  const Recording r = Record("exec", {Runfile("tests/exec"), Runfile("tests/exec_target")});
  EXPECT_EQ(r.run.exit_code, 5) << r.run.err;
  EXPECT_EQ(r.run.out, "exec_target: ok\n");
  ASSERT_GE(r.traces.size(), 1u) << r.run.err;
  ASSERT_LE(r.traces.size(), 2u) << Join(r.traces);
  std::vector<TraceSummary> traces;
  for (const std::string& t : r.traces) traces.push_back(SummarizeTrace(t));
  const TraceSummary* before = nullptr;  // the image that called exec
  const TraceSummary* after = nullptr;   // the image it became
  for (const TraceSummary& t : traces) {
    if (EndsWith(t.process.program, "/tests/exec")) before = &t;
    if (EndsWith(t.process.program, "/tests/exec_target")) after = &t;
  }
  ASSERT_NE(before, nullptr) << "no trace of the image before exec among " << Join(r.traces);
  ExpectConsistent(*before);
  ExpectSite(*before, "before_exec",
             {.calls = {{Api::kMalloc, 2}},
              .allocations = 2,
              .bytes = 888,
              .leaked_blocks = 2,  // live when the image went away
              .leaked_bytes = 888});
  EXPECT_EQ(before->Site("target_alloc"), nullptr) << before->ToString();

  ASSERT_NE(after, nullptr) << "no trace of the exec'd image among " << Join(r.traces);
  ExpectConsistent(*after);
  ExpectSite(*after, "target_alloc",
             {.calls = {{Api::kMalloc, 6}},
              .allocations = 6,
              .bytes = 6 * 555,
              .released_by = {{Api::kFree, 1}},
              .leaked_blocks = 5,
              .leaked_bytes = 5 * 555});
  EXPECT_EQ(after->Site("before_exec"), nullptr) << after->ToString();
  // One process, two images.
  EXPECT_EQ(after->process.pid, before->process.pid);
  EXPECT_EQ(after->process.ppid, before->process.ppid);
  EXPECT_GT(after->process.start_monotonic_ns, before->process.start_monotonic_ns);
  // The exit status is the exec'd image's; the first image never exited.
  EXPECT_TRUE(WIFEXITED(after->end.exit_status) && WEXITSTATUS(after->end.exit_status) == 5)
      << after->end.exit_status;
  EXPECT_EQ(before->end.exit_status, -1);
}

// exec straight away (no pause): the two images' regions appear in the same
// scan of the session folder; the older must still be the one replaced.
TEST(ExecTest, ImmediateExecFromAShell) {
  for (int round = 0; round < 5; ++round) {
    const Recording r =
        Record("exec_now", {"/bin/sh", "-c", "exec " + Runfile("tests/exec_target")});
    ASSERT_EQ(r.run.exit_code, 5) << r.run.err;
    ASSERT_EQ(r.traces.size(), 2u) << Join(r.traces);
    int shells = 0, targets = 0;
    for (const std::string& t : r.traces) {
      const TraceSummary s = SummarizeTrace(t);
      ExpectConsistent(s);
      if (EndsWith(s.process.program, "/tests/exec_target")) {
        ++targets;
        EXPECT_TRUE(WIFEXITED(s.end.exit_status) && WEXITSTATUS(s.end.exit_status) == 5)
            << s.end.exit_status;
        ExpectSite(s, "target_alloc",
                   {.calls = {{Api::kMalloc, 6}},
                    .allocations = 6,
                    .bytes = 6 * 555,
                    .released_by = {{Api::kFree, 1}},
                    .leaked_blocks = 5,
                    .leaked_bytes = 5 * 555});
      } else {
        ++shells;
        EXPECT_EQ(s.end.exit_status, -1) << s.process.program;
      }
    }
    EXPECT_EQ(shells, 1);
    EXPECT_EQ(targets, 1);
  }
}

}  // namespace
}  // namespace heaprec::tests
