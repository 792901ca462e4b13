// heaprec on tests/programs/spawn.c: fork from a program whose other threads
// are inside malloc and free (the child must not inherit a lock held for
// good), 20 times; then vfork + exec and posix_spawn from it, with the same
// threads busy; and fork while another thread is inside the recorder's
// unwinder (libunwind). Each traced image has a trace of its own with exactly its own
// allocations; output and exit status are as without heaprec. The test's
// timeout bounds a deadlock.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <string>
#include <vector>

#include "format/api.h"
#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

using format::Api;

constexpr int kForks = 20;
constexpr uint64_t kBusyCalls = 4 * 22 * 5000;  // threads x rounds x calls
constexpr uint64_t kNotes = kForks + 2;

std::string ExpectedOutput() {
  std::string out = "spawn: 4 busy threads\n";
  for (int n = 0; n < kForks; ++n) {
    out += "spawn: child " + std::to_string(n) + "\n";
    out += "spawn: child " + std::to_string(n) + " exited " + std::to_string(30 + n) + "\n";
  }
  out += "spawn: target vfork\nspawn: vfork+exec exited 21\n";
  out += "spawn: target spawn\nspawn: posix_spawn exited 22\n";
  return out + "spawn: done\n";
}

// Bytes of busy_block(i) = malloc(16 + 8 * (i % 32)) over one round's calls.
constexpr uint64_t BusyBytesPerRound() {
  uint64_t bytes = 0;
  for (uint64_t i = 0; i < 5000; ++i) bytes += 16 + 8 * (i % 32);
  return bytes;
}

bool Has(const std::vector<std::string>& args, const std::string& arg) {
  return std::find(args.begin(), args.end(), arg) != args.end();
}

TEST(SpawnTest, ForkVforkAndPosixSpawnWhileThreadsAllocate) {
  const std::string spawn = Runfile("tests/spawn");
  const ProcessResult plain = RunProgram({spawn});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out, ExpectedOutput());

  const Recording r = Record("spawn", {spawn});
  EXPECT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_EQ(r.run.out, ExpectedOutput());
  // The program, its 20 fork children, and the two images exec'd in children.
  ASSERT_EQ(r.traces.size(), kForks + 3u) << Join(r.traces) << "\n" << r.run.err;
  std::vector<TraceSummary> traces;
  for (const std::string& t : r.traces) traces.push_back(SummarizeTrace(t));

  const TraceSummary* parent = nullptr;
  for (const TraceSummary& t : traces) {
    if (t.Site("busy_block") != nullptr) {
      EXPECT_EQ(parent, nullptr) << "two traces with busy_block";
      parent = &t;
    }
  }
  ASSERT_NE(parent, nullptr) << "no trace has busy_block";
  ExpectConsistent(*parent);
  EXPECT_TRUE(WIFEXITED(parent->end.exit_status) && WEXITSTATUS(parent->end.exit_status) == 0)
      << parent->end.exit_status;
  static_assert(BusyBytesPerRound() == 699232);
  ExpectSite(*parent, "busy_block",
             {.calls = {{Api::kMalloc, kBusyCalls}},
              .allocations = kBusyCalls,
              .bytes = 4 * 22 * BusyBytesPerRound(),
              .released_by = {{Api::kFree, kBusyCalls}}});
  ExpectSite(*parent, "parent_note",
             {.calls = {{Api::kMalloc, kNotes}},
              .allocations = kNotes,
              .bytes = kNotes * 40,
              .leaked_blocks = kNotes,
              .leaked_bytes = kNotes * 40});
  for (const char* name : {"child_block", "child_kept", "target_block"}) {
    EXPECT_EQ(parent->Site(name), nullptr) << name << " in the parent's trace";
  }
  const SiteStats* busy = parent->Site("busy_block");
  ASSERT_NE(busy, nullptr);
  EXPECT_EQ(busy->threads.size(), 4u);
  EXPECT_EQ(parent->threads.size(), 5u);  // and main

  int forked = 0, vforked = 0, spawned = 0;
  for (const TraceSummary& t : traces) {
    if (&t == parent) continue;
    SCOPED_TRACE("pid " + std::to_string(t.process.pid));
    ExpectConsistent(t);
    EXPECT_EQ(t.process.ppid, parent->process.pid);
    EXPECT_EQ(t.Site("busy_block"), nullptr) << t.ToString();
    EXPECT_EQ(t.Site("parent_note"), nullptr) << t.ToString();
    if (t.Site("child_block") != nullptr) {  // a fork child: main's thread only
      ++forked;
      ExpectSite(t, "child_block",
                 {.calls = {{Api::kMalloc, 100}},
                  .allocations = 100,
                  .bytes = 100 * 64 + 99 * 100 / 2,
                  .released_by = {{Api::kFree, 100}}});
      ExpectSite(t, "child_kept",
                 {.calls = {{Api::kMalloc, 1}},
                  .allocations = 1,
                  .bytes = 200,
                  .leaked_blocks = 1,
                  .leaked_bytes = 200});
      EXPECT_EQ(t.threads.size(), 1u);
      // Forked while the busy threads were at work (in the parent's seqs).
      EXPECT_GT(t.process.parent_trace_seq, busy->first_seq);
      EXPECT_LT(t.process.parent_trace_seq, busy->last_seq);
      continue;
    }
    // An image exec'd by a vfork or posix_spawn child.
    vforked += Has(t.process.args, "vfork");
    spawned += Has(t.process.args, "spawn");
    EXPECT_EQ(t.process.parent_trace_seq, 0u);
    ExpectSite(t, "target_block",
               {.calls = {{Api::kMalloc, 6}},
                .allocations = 6,
                .bytes = 6 * 321,
                .released_by = {{Api::kFree, 2}},
                .leaked_blocks = 4,
                .leaked_bytes = 4 * 321});
  }
  EXPECT_EQ(forked, kForks);
  EXPECT_EQ(vforked, 1);
  EXPECT_EQ(spawned, 1);
}

// A fork while another thread is inside libunwind, which holds its cache
// lock while it looks up a call site the recorder had not seen: the child
// must not inherit that lock held (its own first new call site needs
// libunwind too, with every signal blocked: it would wait for good, and the
// program kills it after 5 s). The program holds that thread in its own
// dl_iterate_phdr, which libunwind calls under the lock, so the fork meets
// it there every time (with Debian 12's libunwind 1.6.2; a libunwind that
// locks nothing there makes this test pass without proving anything).
TEST(SpawnTest, ForkWhileAnotherThreadIsInTheUnwinder) {
  const std::string spawn = Runfile("tests/spawn");
  const std::string out =
      "spawn: fork while unwinding\nspawn: child 0\nspawn: child 0 exited 30\nspawn: done\n";
  const ProcessResult plain = RunProgram({spawn, "unwinding"});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out, out);

  const Recording r = Record("spawn_unwinding", {spawn, "unwinding"});
  EXPECT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_EQ(r.run.out, out);
  ASSERT_EQ(r.traces.size(), 2u) << Join(r.traces) << "\n" << r.run.err;
  TraceSummary a = SummarizeTrace(r.traces[0]);
  TraceSummary b = SummarizeTrace(r.traces[1]);
  const bool a_is_parent = b.process.ppid == a.process.pid;
  const TraceSummary& parent = a_is_parent ? a : b;
  const TraceSummary& child = a_is_parent ? b : a;
  ASSERT_EQ(child.process.ppid, parent.process.pid);
  ExpectConsistent(parent);
  ExpectConsistent(child);
  EXPECT_TRUE(WIFEXITED(parent.end.exit_status) && WEXITSTATUS(parent.end.exit_status) == 0)
      << parent.end.exit_status;
  ExpectSite(parent, "warm_block",
             {.calls = {{Api::kMalloc, 1}},
              .allocations = 1,
              .bytes = 24,
              .released_by = {{Api::kFree, 1}}});
  ExpectSite(parent, "fresh_block",
             {.calls = {{Api::kMalloc, 1}},
              .allocations = 1,
              .bytes = 88,
              .released_by = {{Api::kFree, 1}}});
  ExpectSite(parent, "parent_note",
             {.calls = {{Api::kMalloc, 1}},
              .allocations = 1,
              .bytes = 40,
              .leaked_blocks = 1,
              .leaked_bytes = 40});
  ExpectSite(child, "child_block",
             {.calls = {{Api::kMalloc, 100}},
              .allocations = 100,
              .bytes = 100 * 64 + 99 * 100 / 2,
              .released_by = {{Api::kFree, 100}}});
  ExpectSite(child, "child_kept",
             {.calls = {{Api::kMalloc, 1}},
              .allocations = 1,
              .bytes = 200,
              .leaked_blocks = 1,
              .leaked_bytes = 200});
  for (const char* name : {"warm_block", "fresh_block", "parent_note"}) {
    EXPECT_EQ(child.Site(name), nullptr) << name << " in the child's trace";
  }
}

}  // namespace
}  // namespace heaprec::tests
