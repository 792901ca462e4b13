// heaprec on tests/programs/endings.cc: allocations during static
// destruction, a program's own SIGABRT handler, SIGKILL right after a burst
// of allocations, a program that never
// returns from main while threads run (a thread calls exit), and heaprec
// itself killed while the program runs (the program finishes unharmed).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "format/api.h"
#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

extern char** environ;

namespace heaprec::tests {
namespace {

using format::Api;

TraceSummary RecordMode(const std::string& mode, int exit_code, const std::string& out) {
  TraceSummary s =
      RecordOneTrace("endings_" + mode, {Runfile("tests/endings"), mode}, exit_code, out);
  return s;
}

TEST(EndingsTest, AllocationsDuringStaticDestruction) {
  const TraceSummary s = RecordMode("static_dtor", 3, "endings: static_dtor\n");
  EXPECT_TRUE(WIFEXITED(s.end.exit_status));
  EXPECT_EQ(WEXITSTATUS(s.end.exit_status), 3);
  ExpectSite(s, "registry_alloc",
             {.calls = {{Api::kMalloc, 100}},
              .allocations = 100,
              .bytes = 6400,
              .released_by = {{Api::kFree, 100}}});
  ExpectSite(s, "dtor_alloc",
             {.calls = {{Api::kMalloc, 5}},
              .allocations = 5,
              .bytes = 160,
              .leaked_blocks = 5,
              .leaked_bytes = 160});
}

TEST(EndingsTest, TheProgramsOwnAbortHandler) {
  const TraceSummary s = RecordMode("abort_handler", 128 + SIGABRT, "endings: abort handler ran\n");
  EXPECT_TRUE(WIFSIGNALED(s.end.exit_status)) << s.end.exit_status;
  EXPECT_EQ(WTERMSIG(s.end.exit_status), SIGABRT);
  ExpectSite(s, "before_abort",
             {.calls = {{Api::kMalloc, 20}},
              .allocations = 20,
              .bytes = 320,
              .leaked_blocks = 20,
              .leaked_bytes = 320});
  ExpectSite(s, "report_alloc",
             {.calls = {{Api::kMalloc, 3}},
              .allocations = 3,
              .bytes = 384,
              .leaked_blocks = 3,
              .leaked_bytes = 384});
}

TEST(EndingsTest, NeverReturnsFromMainWhileThreadsRun) {
  const TraceSummary s =
      RecordMode("never_returns", 7, "endings: never_returns exits from a thread\n");
  EXPECT_EQ(WEXITSTATUS(s.end.exit_status), 7);
  ExpectSite(s, "exiting_thread_alloc",
             {.calls = {{Api::kMalloc, 1000}},
              .allocations = 1000,
              .bytes = 8000,
              .leaked_blocks = 1000,
              .leaked_bytes = 8000});
  // The spinning threads were stopped anywhere: each left at most the one
  // block between its malloc and its free; every other block was freed.
  const SiteStats* spin = s.Site("spin_alloc");
  ASSERT_NE(spin, nullptr) << s.ToString();
  EXPECT_GT(spin->allocations, 0u);
  EXPECT_LE(spin->leaked_blocks, 2u);
  EXPECT_EQ(spin->released_blocks + spin->leaked_blocks, spin->allocations);
  EXPECT_EQ(spin->threads.size(), 2u);
}

TEST(EndingsTest, SigkillLosesNothingRecorded) {
  const TraceSummary s = RecordMode("sigkill", 128 + SIGKILL, "endings: sigkill\n");
  EXPECT_TRUE(WIFSIGNALED(s.end.exit_status)) << s.end.exit_status;
  EXPECT_EQ(WTERMSIG(s.end.exit_status), SIGKILL);
  ExpectSite(s, "sigkill_alloc",
             {.calls = {{Api::kMalloc, 200000}},
              .allocations = 200000,
              .bytes = 3200000,
              .leaked_blocks = 200000,
              .leaked_bytes = 3200000});
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(EndingsTest, TheProgramOutlivesAKilledHeaprec) {
  const std::string program = Runfile("tests/endings");
  const ProcessResult bare = RunProgram({program, "long_run"});
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  ASSERT_EQ(bare.out.rfind("endings: long_run done ", 0), 0u) << bare.out;

  // Orphans come back to this process, so the program's status is seen.
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  struct NoLongerSubreaper {  // also when an ASSERT below returns early
    ~NoLongerSubreaper() { prctl(PR_SET_CHILD_SUBREAPER, 0); }
  } restore;
  const std::string dir = MakeTempDir("killed");
  const std::string out = dir + "/out";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const std::string heaprec = Runfile("recorder/heaprec");
  const std::string trace = dir + "/trace.zst";
  std::vector<std::string> argv = {heaprec, "-q", "-o", trace, "--", program, "long_run"};
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t launcher = -1;
  ASSERT_EQ(posix_spawn(&launcher, args[0], &actions, nullptr, args.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);

  // Kill heaprec once the program runs: its child appears in /proc.
  const std::string children =
      "/proc/" + std::to_string(launcher) + "/task/" + std::to_string(launcher) + "/children";
  pid_t child = 0;
  for (int i = 0; i < 2000 && child == 0; ++i) {
    child = static_cast<pid_t>(std::atoi(ReadFile(children).c_str()));
    if (child == 0) usleep(1000);
  }
  ASSERT_GT(child, 0) << "the program never started";
  usleep(100000);  // recording for a while: the rings are in use
  // Still running (it prints only at its end; traced, it runs ~1 s).
  EXPECT_EQ(ReadFile(out), "");
  ASSERT_EQ(kill(launcher, SIGKILL), 0);

  std::map<pid_t, int> statuses;
  for (int i = 0; i < 2; ++i) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    ASSERT_GT(pid, 0);
    statuses[pid] = status;
  }
  ASSERT_EQ(statuses.count(launcher), 1u);
  EXPECT_TRUE(WIFSIGNALED(statuses[launcher]));
  ASSERT_EQ(statuses.count(child), 1u) << "the program was not reaped here";
  EXPECT_TRUE(WIFEXITED(statuses[child])) << statuses[child];
  EXPECT_EQ(WEXITSTATUS(statuses[child]), 0);
  EXPECT_EQ(ReadFile(out), bare.out);
}

}  // namespace
}  // namespace heaprec::tests
