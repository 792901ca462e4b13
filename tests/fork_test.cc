// heaprec on tests/programs/fork.c: a fork child gets a trace of its own,
// which names its parent and holds only what the child allocated; the
// parent's trace holds what the parent allocated before and after.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include "format/api.h"
#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

using format::Api;

TEST(ForkTest, ParentAndChildTraces) {
  const Recording r = Record("fork", {Runfile("tests/fork")});
  EXPECT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_EQ(r.run.out, "fork: child ok\n");
  ASSERT_EQ(r.traces.size(), 2u) << Join(r.traces) << "\n" << r.run.err;
  TraceSummary a = SummarizeTrace(r.traces[0]);
  TraceSummary b = SummarizeTrace(r.traces[1]);
  // The child's trace names the parent's pid as its parent.
  const bool a_is_parent = b.process.ppid == a.process.pid;
  const TraceSummary& parent = a_is_parent ? a : b;
  const TraceSummary& child = a_is_parent ? b : a;
  ASSERT_EQ(child.process.ppid, parent.process.pid)
      << "pids " << a.process.pid << " (ppid " << a.process.ppid << "), " << b.process.pid
      << " (ppid " << b.process.ppid << ")";
  ExpectConsistent(parent);
  ExpectConsistent(child);
  EXPECT_EQ(parent.process.parent_trace_seq, 0u);
  EXPECT_TRUE(WIFEXITED(parent.end.exit_status) && WEXITSTATUS(parent.end.exit_status) == 0)
      << parent.end.exit_status;

  ExpectSite(parent, "before_fork",
             {.calls = {{Api::kMalloc, 3}},
              .allocations = 3,
              .bytes = 333,
              .leaked_blocks = 3,
              .leaked_bytes = 333});
  ExpectSite(parent, "after_fork",
             {.calls = {{Api::kCalloc, 4}},
              .allocations = 4,
              .bytes = 1332,
              .leaked_blocks = 4,
              .leaked_bytes = 1332});
  EXPECT_EQ(parent.Site("child_alloc"), nullptr) << parent.ToString();
  EXPECT_EQ(parent.Site("child_temp"), nullptr) << parent.ToString();

  ExpectSite(child, "child_alloc",
             {.calls = {{Api::kMalloc, 5}},
              .allocations = 5,
              .bytes = 1110,
              .leaked_blocks = 5,
              .leaked_bytes = 1110});
  ExpectSite(child, "child_temp",
             {.calls = {{Api::kMalloc, 2}},
              .allocations = 2,
              .bytes = 100,
              .released_by = {{Api::kFree, 2}}});
  // The parent's blocks are not the child's events.
  EXPECT_EQ(child.Site("before_fork"), nullptr) << child.ToString();
  EXPECT_EQ(child.Site("after_fork"), nullptr) << child.ToString();

  // The fork happened after the parent's before_fork() calls and before its
  // after_fork() calls, in the parent's seq order. Like a marker's seq, the
  // value is the seq of the parent's next event (the fork takes none itself),
  // here its first after_fork() call.
  const SiteStats* before = parent.Site("before_fork");
  const SiteStats* after = parent.Site("after_fork");
  ASSERT_NE(before, nullptr);
  ASSERT_NE(after, nullptr);
  EXPECT_GT(child.process.parent_trace_seq, before->last_seq);
  EXPECT_LE(child.process.parent_trace_seq, after->first_seq);
}

}  // namespace
}  // namespace heaprec::tests
