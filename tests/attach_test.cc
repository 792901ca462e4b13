// heaprec -p PID: attaching to a running process and detaching from it
// (recorder/launcher/attach_command.h), end to end, on attach_target
// (tests/programs/attach_target.cc):
// - exact numbers per call site for what was allocated in the window; frees
//   of blocks from before it counted apart; the process unchanged after;
// - 100 attach/detach cycles on 4 threads allocating at full speed, and the
//   program's results and exit status unchanged;
// - a target that exits, or execs, while attached; a module it loads while
//   attached is routed too;
// - a process in its own PID namespace (unshare --pid --fork: root only);
// - the refusals (no such process, another user's without CAP_SYS_PTRACE,
//   statically linked).
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

void SleepMs(long ms) {
  const timespec t = {ms / 1000, (ms % 1000) * 1000000};
  nanosleep(&t, nullptr);
}

// A program started in the background, its output in files.
struct Background {
  pid_t pid = -1;
  std::string out, err;
  int Wait() {
    int status = 0;
    waitpid(pid, &status, 0);
    pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  ~Background() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
};

void Start(Background* b, const std::vector<std::string>& argv, const std::string& dir,
           const std::string& name) {
  b->out = dir + "/" + name + ".out";
  b->err = dir + "/" + name + ".err";
  b->pid = StartInBackground(argv, b->out, b->err);
}

std::string Target() { return Runfile("tests/attach_target"); }
std::string Heaprec() { return Runfile("recorder/heaprec"); }

// Starts heaprec -p pid in the background and waits until it says it has
// attached. extra: more options.
void AttachInBackground(Background* h, pid_t pid, const std::string& trace, const std::string& dir,
                        const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv = {Heaprec(), "-p", std::to_string(pid), "-o", trace};
  argv.insert(argv.end(), extra.begin(), extra.end());
  Start(h, argv, dir, "heaprec");
  for (int i = 0; i < 4000; ++i) {
    if (ReadTextFile(h->err).find("attached to process") != std::string::npos) return;
    if (waitpid(h->pid, nullptr, WNOHANG) == h->pid) {
      h->pid = -1;
      break;
    }
    SleepMs(5);
  }
  ADD_FAILURE() << "heaprec did not attach: " << ReadTextFile(h->err);
}

// Phase B of attach_target's phases/plugin modes under heaprec -p: attach,
// let B run, Ctrl-C heaprec (detach), then let the target finish (phase C
// after the detach) with target_status.
void RecordPhaseB(Background* target, pid_t pid, const std::string& dir, const std::string& trace,
                  int target_status = 0) {
  Background h;
  AttachInBackground(&h, pid, trace, dir);
  TouchFile(dir + "/go-b");
  ASSERT_TRUE(WaitForFile(dir + "/b-done"));
  kill(h.pid, SIGINT);  // Ctrl-C: detach
  EXPECT_EQ(h.Wait(), 0) << ReadTextFile(h.err);
  EXPECT_NE(ReadTextFile(h.err).find("then detached; it runs on"), std::string::npos)
      << ReadTextFile(h.err);
  TouchFile(dir + "/go-c");
  EXPECT_EQ(target->Wait(), target_status);  // phase C ran after the detach, unchanged
}

// The trace read completely, with phase B's 8 allocations of while_attached.
void ExpectPhaseB(const std::string& trace) {
  const TraceSummary s = SummarizeTrace(trace);
  ASSERT_EQ(s.read.status, format::ReadResult::kComplete) << s.read.message;
  ASSERT_NE(s.Site("while_attached"), nullptr);
  EXPECT_EQ(s.Site("while_attached")->allocations, 8u);
}

TEST(AttachTest, PhasesGiveExactNumbersForTheWindow) {
  const std::string dir = MakeTempDir("attach_phases");
  Background target;
  Start(&target, {Target(), "phases", dir}, dir, "target");
  ASSERT_TRUE(WaitForFile(dir + "/ready"));
  const std::string trace = dir + "/trace.zst";
  RecordPhaseB(&target, target.pid, dir, trace);

  const TraceSummary s = SummarizeTrace(trace);
  ASSERT_EQ(s.read.status, format::ReadResult::kComplete) << s.read.message;
  EXPECT_EQ(s.Site("before_attach"), nullptr) << "allocated before the attach";
  // The launcher sampled the attached process's RSS (format 3.4): at once
  // when it found the region, then every 10 ms.
  ASSERT_FALSE(s.rss_samples.empty());
  EXPECT_GT(s.rss_samples[0].anon_bytes, 0u);
  EXPECT_GT(s.rss_samples[0].file_bytes, 0u);
  SiteExpectation b;
  b.calls = {{format::Api::kMalloc, 5}};
  b.allocations = 5;
  b.bytes = 10000;
  b.leaked_blocks = 5;  // live when the recording ended (freed after it)
  b.leaked_bytes = 10000;
  ExpectSite(s, "while_attached", [&] {
    SiteExpectation both = b;
    both.calls[format::Api::kNewArray] = 3;
    both.allocations = 8;
    both.bytes = 10000 + 3 * 400;
    both.leaked_blocks = 8;
    both.leaked_bytes = 10000 + 1200;
    return both;
  }());
  SiteExpectation temp;
  temp.calls = {{format::Api::kMalloc, 7}};
  temp.allocations = 7;
  temp.bytes = 2100;
  temp.released_by = {{format::Api::kFree, 7}};
  ExpectSite(s, "temp_in_window", temp);
  EXPECT_EQ(s.unmatched_frees, 10u) << "the 10 blocks of phase A, freed while attached";
  ASSERT_GE(s.markers.size(), 2u);
  EXPECT_EQ(s.markers.front().label, "heaprec:attach");
  EXPECT_EQ(s.markers.back().label, "heaprec:detach");
  // The recording began in a running process: phase A's frees are of blocks
  // made before it, not bad frees (analyzers/live_heap.h RecordedWholeLife).
  EXPECT_FALSE(s.process.from_start);
  const ProcessResult replay =
      RunProgram({Runfile("replay/heapreplay"), "--json", "--mismatches", trace});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  const nlohmann::json j = nlohmann::json::parse(replay.out);
  EXPECT_EQ(j["summary"]["recorded_whole_life"], false);
  EXPECT_EQ(j["summary"]["freed_before_recording"], 10);
  EXPECT_EQ(j["summary"]["leaked_bytes"], 11200);
  EXPECT_EQ(j["mismatches"]["count"], 0) << j["mismatches"].dump();
}

TEST(AttachTest, HundredAttachesUnderLoadChangeNothing) {
  const std::string dir = MakeTempDir("attach_load");
  Background target;
  Start(&target, {Target(), "load", dir}, dir, "target");
  ASSERT_TRUE(WaitForFile(dir + "/ready"));
  int failures = 0;
  std::string last_error;
  for (int i = 0; i < 100; ++i) {
    const ProcessResult r =
        RunProgram({Heaprec(), "-q", "-p", std::to_string(target.pid), "--duration", "20ms", "-o",
                    dir + "/cycle." + std::to_string(i) + ".zst"});
    if (r.exit_code != 0) {
      ++failures;
      last_error = r.err;
    }
    ASSERT_EQ(kill(target.pid, 0), 0) << "the target died at cycle " << i;
  }
  EXPECT_EQ(failures, 0) << last_error;
  TouchFile(dir + "/stop");
  EXPECT_EQ(target.Wait(), 0) << "every block of work gave the same checksum";
  EXPECT_NE(ReadTextFile(target.out).find("blocks "), std::string::npos);
  // Each cycle's trace holds what its window saw, and nothing is lost.
  const std::vector<std::string> traces = ListFiles(dir, ".zst");
  ASSERT_EQ(traces.size(), 100u);
  for (const std::string& t : {traces.front(), traces.back()}) {
    const TraceSummary s = SummarizeTrace(t);
    ASSERT_EQ(s.read.status, format::ReadResult::kComplete) << t << ": " << s.read.message;
    EXPECT_GT(s.total.allocations, 1000u) << t;
    ASSERT_NE(s.Site("WorkBlock"), nullptr) << t;
  }
}

// heaprec killed while attached leaves the calls routed to a recorder whose
// launcher is gone: the process runs on, and the next attach takes over.
// The README's workflow for a running service (as with jemalloc's
// mem_profiler -s 60 -c 1024): attach for a while with sampling, then the
// flat/cum table, a flame graph and the HTML page from that trace.
TEST(AttachTest, SampledAttachThenTopFlameGraphAndPage) {
  const std::string dir = MakeTempDir("attach_sampled");
  Background target;
  Start(&target, {Target(), "load", dir}, dir, "target");
  ASSERT_TRUE(WaitForFile(dir + "/ready"));
  const std::string trace = dir + "/server.zst";
  const ProcessResult r = RunProgram({Heaprec(), "-p", std::to_string(target.pid), "--duration",
                                      "1s", "--sample-rate", "64K", "-o", trace});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("sampled: every 64 KiB"), std::string::npos) << r.err;
  TouchFile(dir + "/stop");
  EXPECT_EQ(target.Wait(), 0);
  const std::string heapreplay = Runfile("replay/heapreplay");
  const ProcessResult top = RunProgram({heapreplay, "--hot", "--top", "10", trace});
  EXPECT_EQ(top.exit_code, 0) << top.err;
  EXPECT_NE(top.out.find("flat%"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("WorkBlock"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("sampled: every 64 KiB"), std::string::npos) << top.out;
  const ProcessResult svg =
      RunProgram({heapreplay, "--hot", "--flamegraph", dir + "/hot.svg", trace});
  EXPECT_EQ(svg.exit_code, 0) << svg.err;
  const std::string drawn = ReadTextFile(dir + "/hot.svg");
  EXPECT_NE(drawn.find("<svg"), std::string::npos);
  EXPECT_NE(drawn.find("WorkBlock"), std::string::npos);
  const ProcessResult html = RunProgram({heapreplay, "--html", dir + "/server.html", trace});
  EXPECT_EQ(html.exit_code, 0) << html.err;
  EXPECT_NE(ReadTextFile(dir + "/server.html").find("WorkBlock"), std::string::npos);
}

TEST(AttachTest, AttachAgainAfterHeaprecWasKilled) {
  const std::string dir = MakeTempDir("attach_killed");
  Background target;
  Start(&target, {Target(), "phases", dir}, dir, "target");
  ASSERT_TRUE(WaitForFile(dir + "/ready"));
  {
    Background killed;
    AttachInBackground(&killed, target.pid, dir + "/killed.zst", dir);
    kill(killed.pid, SIGKILL);
    killed.Wait();
  }
  const std::string trace = dir + "/trace.zst";
  RecordPhaseB(&target, target.pid, dir, trace);
  ExpectPhaseB(trace);
}

TEST(AttachTest, TargetThatExitsWhileAttached) {
  const std::string dir = MakeTempDir("attach_exit");
  Background target;
  Start(&target, {Target(), "exit", dir}, dir, "target");
  ASSERT_TRUE(WaitForFile(dir + "/ready"));
  Background h;
  const std::string trace = dir + "/trace.zst";
  AttachInBackground(&h, target.pid, trace, dir);
  TouchFile(dir + "/go-b");
  EXPECT_EQ(target.Wait(), 5);
  EXPECT_EQ(h.Wait(), 0) << ReadTextFile(h.err);
  EXPECT_NE(ReadTextFile(h.err).find("until it "), std::string::npos) << ReadTextFile(h.err);
  const TraceSummary s = SummarizeTrace(trace);
  ASSERT_EQ(s.read.status, format::ReadResult::kComplete) << s.read.message;
  ASSERT_NE(s.Site("while_attached"), nullptr);
  EXPECT_EQ(s.Site("while_attached")->allocations, 8u);
}

TEST(AttachTest, TargetThatExecsWhileAttached) {
  const std::string dir = MakeTempDir("attach_exec");
  Background target;
  Start(&target, {Target(), "exec", dir}, dir, "target");
  ASSERT_TRUE(WaitForFile(dir + "/ready"));
  Background h;
  const std::string trace = dir + "/trace.zst";
  AttachInBackground(&h, target.pid, trace, dir);
  TouchFile(dir + "/go-b");
  EXPECT_EQ(target.Wait(), 4) << "the exec'd shell's status";
  EXPECT_EQ(h.Wait(), 0) << ReadTextFile(h.err);
  const TraceSummary s = SummarizeTrace(trace);
  ASSERT_EQ(s.read.status, format::ReadResult::kComplete) << s.read.message;
  ASSERT_NE(s.Site("while_attached"), nullptr);
  EXPECT_EQ(s.Site("while_attached")->allocations, 8u);
}

TEST(AttachTest, ModuleLoadedWhileAttachedIsRouted) {
  const std::string dir = MakeTempDir("attach_plugin");
  Background target;
  Start(&target, {Target(), "plugin", dir, Runfile("tests/libplugin.so")}, dir, "target");
  ASSERT_TRUE(WaitForFile(dir + "/ready"));
  const std::string trace = dir + "/trace.zst";
  RecordPhaseB(&target, target.pid, dir, trace);
  const TraceSummary s = SummarizeTrace(trace);
  ASSERT_EQ(s.read.status, format::ReadResult::kComplete) << s.read.message;
  const SiteStats* plugin = s.Site("plugin_alloc");
  ASSERT_NE(plugin, nullptr) << "the plugin's malloc calls were never routed";
  // Routed at the latest 4096 recorded calls after the load (attach.h).
  EXPECT_GE(plugin->allocations, 20000u - 4096u - 64u);
  EXPECT_EQ(plugin->leaked_blocks, 100u);
}

// A container: its own PID namespace (the target is its pid 1), and with
// mounts, its own /dev/shm, where heaprec's session folder and library are
// not: they are put in the process's root (attach_files.h).
void AttachInNamespaces(bool mounts) {
  if (geteuid() != 0) GTEST_SKIP() << "unshare needs root";
  std::vector<std::string> unshare = {"/usr/bin/unshare", "--pid", "--fork"};
  if (mounts) unshare.insert(unshare.end(), {"--mount", "--mount-proc"});
  std::vector<std::string> probe = unshare;
  probe.push_back("/bin/true");
  if (RunProgram(probe).exit_code != 0) GTEST_SKIP() << "unshare is not allowed here";
  const std::string dir = MakeTempDir(mounts ? "attach_mntns" : "attach_pidns");
  std::vector<std::string> argv = unshare;
  if (mounts) {
    argv.insert(argv.end(),
                {"/bin/sh", "-c", "mount -t tmpfs tmpfs /dev/shm && exec \"$0\" phases \"$1\"",
                 Target(), dir});
  } else {
    argv.insert(argv.end(), {Target(), "phases", dir});
  }
  Background outer;
  Start(&outer, argv, dir, "target");
  ASSERT_TRUE(WaitForFile(dir + "/ready"));
  // The target as the host sees it: unshare's child.
  pid_t pid = 0;
  for (int i = 0; i < 200 && pid == 0; ++i) {
    std::istringstream children(ReadTextFile("/proc/" + std::to_string(outer.pid) + "/task/" +
                                             std::to_string(outer.pid) + "/children"));
    children >> pid;
    if (pid == 0) SleepMs(5);
  }
  ASSERT_GT(pid, 0);
  EXPECT_NE(ReadTextFile("/proc/" + std::to_string(pid) + "/status")
                .find("NSpid:\t" + std::to_string(pid) + "\t1"),
            std::string::npos)
      << "the target is pid 1 of its namespace";
  const std::string trace = dir + "/trace.zst";
  RecordPhaseB(&outer, pid, dir, trace);
  ExpectPhaseB(trace);
  const TraceSummary s = SummarizeTrace(trace);
  ASSERT_NE(s.Site("temp_in_window"), nullptr);
  EXPECT_EQ(s.Site("temp_in_window")->allocations, 7u);
}

TEST(AttachTest, ProcessInItsOwnPidNamespace) { AttachInNamespaces(false); }

TEST(AttachTest, ProcessInItsOwnPidAndMountNamespaces) { AttachInNamespaces(true); }

// Debian's python3.11 is a non-PIE executable that takes malloc's and
// free's addresses: dlsym(RTLD_DEFAULT, "free") names its PLT entry, which
// jumps through the routed GOT entry (the recorder once looped there for
// ever). The real functions must be libc's.
TEST(AttachTest, PythonInterpreter) {
  char real[4096] = {};
  const ssize_t n = readlink("/usr/bin/python3", real, sizeof(real) - 1);
  if (n <= 0) GTEST_SKIP() << "no /usr/bin/python3";
  const std::string python = real[0] == '/' ? real : "/usr/bin/" + std::string(real);
  const std::string dir = MakeTempDir("attach_python");
  Background target;
  Start(&target,
        {python, "-c",
         "import os, sys, time\n"
         "d = {}\n"
         "i = 0\n"
         "open(sys.argv[1] + '/ready', 'w').close()\n"
         "while not os.path.exists(sys.argv[1] + '/stop'):\n"
         "    d[i % 5000] = 'x' * (600 + i % 1000)\n"
         "    i += 1\n"
         "print('kept', len(d))\n",
         dir},
        dir, "python");
  ASSERT_TRUE(WaitForFile(dir + "/ready"));
  const std::string trace = dir + "/trace.zst";
  const ProcessResult r = RunProgram(
      {Heaprec(), "-q", "-p", std::to_string(target.pid), "--duration", "300ms", "-o", trace});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  TouchFile(dir + "/stop");
  EXPECT_EQ(target.Wait(), 0);
  EXPECT_EQ(ReadTextFile(target.out), "kept 5000\n");
  const TraceSummary s = SummarizeTrace(trace);
  ASSERT_EQ(s.read.status, format::ReadResult::kComplete) << s.read.message;
  EXPECT_GT(s.total.allocations, 1000u) << "strings of 600+ bytes come from malloc";
}

// With jemalloc preloaded, the recorder forwards to jemalloc (a block freed
// by the wrong allocator would crash the program).
TEST(AttachTest, ProgramWithAnotherAllocator) {
  const std::string jemalloc = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";
  if (!(access(jemalloc.c_str(), F_OK) == 0)) GTEST_SKIP() << "no " << jemalloc;
  const std::string dir = MakeTempDir("attach_jemalloc");
  Background target;
  Start(&target, {"/usr/bin/env", "LD_PRELOAD=" + jemalloc, Target(), "phases", dir}, dir,
        "target");
  ASSERT_TRUE(WaitForFile(dir + "/ready"));
  const std::string trace = dir + "/trace.zst";
  RecordPhaseB(&target, target.pid, dir, trace);
  ExpectPhaseB(trace);
}

TEST(AttachTest, RefusesWithOneClearLine) {
  // No such process.
  ProcessResult r = RunProgram({Heaprec(), "-p", "999999999"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "heaprec: cannot attach to process 999999999: no process 999999999; nothing "
            "was changed\n");
  // heaprec itself is no target either: -p with a program is a usage error.
  r = RunProgram({Heaprec(), "-p", "1", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("give no PROGRAM"), std::string::npos) << r.err;
  // A statically linked program has no loader to load the recorder with.
  const std::string dir = MakeTempDir("attach_refuse");
  {
    Background st;
    Start(&st, {Runfile("tests/attach_static_bin"), dir}, dir, "static");
    ASSERT_TRUE(WaitForFile(dir + "/ready"));
    r = RunProgram({Heaprec(), "-p", std::to_string(st.pid)});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("is statically linked"), std::string::npos) << r.err;
    TouchFile(dir + "/stop");
    EXPECT_EQ(st.Wait(), 0);
  }
}

TEST(AttachTest, RefusesAnotherUsersProcessWithoutCapSysPtrace) {
  // As root: heaprec runs as nobody, without capabilities, against a process
  // of root's.
  const std::vector<std::string> as_nobody = {"/usr/bin/setpriv", "--reuid=65534",
                                              "--regid=65534",    "--clear-groups",
                                              "--inh-caps=-all",  "--bounding-set=-all"};
  if (geteuid() != 0 || access(as_nobody[0].c_str(), X_OK) != 0)
    GTEST_SKIP() << "needs root and setpriv";
  std::vector<std::string> probe = as_nobody;
  probe.push_back("/bin/true");
  if (RunProgram(probe).exit_code != 0) GTEST_SKIP() << "uid 65534 is not mapped here";
  const std::string dir = MakeTempDir("attach_user");
  {
    Background target;
    Start(&target, {Target(), "phases", dir}, dir, "target");
    ASSERT_TRUE(WaitForFile(dir + "/ready"));
    std::vector<std::string> argv = as_nobody;
    argv.insert(argv.end(), {Heaprec(), "-p", std::to_string(target.pid)});
    const ProcessResult r = RunProgram(argv);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("runs as user root (uid 0) and heaprec as uid 65534 without "
                         "CAP_SYS_PTRACE"),
              std::string::npos)
        << r.err;
    TouchFile(dir + "/go-b");
    TouchFile(dir + "/go-c");
    EXPECT_EQ(target.Wait(), 0);
  }
}

}  // namespace
}  // namespace heaprec::tests
