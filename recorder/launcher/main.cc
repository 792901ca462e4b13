// heaprec: runs a program with libheaprec.so preloaded and writes one trace
// per traced process. See options.cc for the command line and session.h for
// how records travel from the program to the trace files.
//
// The launcher runs beside the program, on the other core: it checks where
// the traces go and creates a session folder in /dev/shm (preflight.h),
// starts the program with the library preloaded,
// and loops (drain regions, write traces) until every traced process is
// gone. Its exit status is the program's (128+N if killed by signal N).
#include <dirent.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "analyzers/human_bytes.h"
#include "analyzers/process_end.h"
#include "analyzers/process_table.h"
#include "analyzers/sampling_notice.h"
#include "format/format_version.h"
#include "recorder/launcher/attach_command.h"
#include "recorder/launcher/compare_command.h"
#include "recorder/launcher/leak_gate.h"
#include "recorder/launcher/library_path.h"
#include "recorder/launcher/options.h"
#include "recorder/launcher/preflight.h"
#include "recorder/launcher/recording_control.h"
#include "recorder/launcher/run_end.h"
#include "recorder/launcher/session.h"
#include "recorder/launcher/traceable.h"
#include "recorder/shared/region_layout.h"

namespace heaprec::recorder::launcher {
namespace {

// The launcher's nice value when it may raise its priority (see Run).
constexpr int kLauncherNice = -5;

std::atomic<pid_t> g_child{0};
std::atomic<int> g_stop_signals{0};
// Set by SIGCHLD: a child changed state, so waitpid has something to say.
// The loop asked on every round before (a system call each, ~8,000 a second
// while the launcher drains; ~2% of its time recording alloc_heavy).
std::atomic<int> g_child_signal{1};

uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// SIGINT/SIGTERM/SIGHUP/SIGQUIT: a signal sent to heaprec alone (kill) is
// passed on to the program; one from the terminal reached the program too.
void OnSignal(int sig, siginfo_t* info, void*) {
  g_stop_signals.fetch_add(1);
  const pid_t child = g_child.load();
  if (child > 0 && info != nullptr && info->si_code != SI_KERNEL) kill(child, sig);
}

void OnChildSignal(int) { g_child_signal.store(1); }

void InstallSignals() {
  struct sigaction child = {};
  child.sa_handler = OnChildSignal;
  child.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  sigemptyset(&child.sa_mask);
  sigaction(SIGCHLD, &child, nullptr);
  struct sigaction sa = {};
  sa.sa_sigaction = OnSignal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaction(sig, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

std::string JoinPatterns(const std::vector<std::string>& patterns) {
  std::string joined;
  for (const std::string& p : patterns) joined += (joined.empty() ? "" : ",") + p;
  return joined;
}

void SetOrUnset(const char* name, const std::string& value) {
  if (value.empty()) {
    unsetenv(name);
  } else {
    setenv(name, value.c_str(), 1);
  }
}

// Starts the program; returns its pid, or -1 with *error set (exec failure
// reported back through a close-on-exec pipe).
pid_t Spawn(const Options& o, const std::string& library, const std::string& session,
            std::string* error) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return -1;
  }
  std::string preload = library;
  if (const char* old = getenv("LD_PRELOAD"); old != nullptr && *old != '\0') {
    preload += std::string(":") + old;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    return -1;
  }
  if (pid == 0) {
    close(pipe_fds[0]);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) signal(sig, SIG_DFL);
    setenv("LD_PRELOAD", preload.c_str(), 1);
    setenv(kSessionEnv, session.c_str(), 1);
    setenv(kLauncherPidEnv, std::to_string(getppid()).c_str(), 1);
    setenv(kDepthEnv, std::to_string(o.depth).c_str(), 1);
    setenv(kFollowEnv, o.follow ? "1" : "0", 1);
    SetOrUnset(kFollowOnlyEnv, JoinPatterns(o.follow_only));
    SetOrUnset(kFollowSkipEnv, JoinPatterns(o.follow_skip));
    setenv(kMarkSignalEnv, std::to_string(o.mark_signal).c_str(), 1);
    setenv(kFreeStacksEnv, o.free_stacks ? "1" : "0", 1);
    setenv(kPreciseTimesEnv, o.precise_times ? "1" : "0", 1);
    // A sample cannot be scanned for leaks: the blocks between it and the
    // roots are not known.
    setenv(kLeakScanEnv, o.leak_scan && o.sample_rate == 0 ? "1" : "0", 1);
    setenv(kSampleRateEnv, std::to_string(o.sample_rate).c_str(), 1);
    setenv(kScanSignalEnv, std::to_string(o.scan_signal).c_str(), 1);
    setenv(kPausedEnv, o.start_paused ? "1" : "0", 1);
    setenv(kSwitchSignalEnv, std::to_string(o.switch_signal).c_str(), 1);
    std::vector<char*> argv;
    for (const std::string& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    const int err = errno;
    (void)!write(pipe_fds[1], &err, sizeof(err));
    _exit(127);
  }
  close(pipe_fds[1]);
  int err = 0;
  ssize_t n;
  do {
    n = read(pipe_fds[0], &err, sizeof(err));
  } while (n < 0 && errno == EINTR);
  close(pipe_fds[0]);
  if (n == sizeof(err)) {
    waitpid(pid, nullptr, 0);
    *error = "cannot run '" + o.command[0] + "': " + std::strerror(err);
    return -1;
  }
  return pid;
}

int ExitCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

int Run(const Options& options) {
  // Suppression files are read before anything runs: a bad one is a usage error.
  analyzers::Suppressions suppressions;
  for (const std::string& file : options.suppressions) {
    std::string error;
    if (!suppressions.AddFile(file, &error)) {
      std::fprintf(stderr, "heaprec: %s\n", error.c_str());
      return 2;
    }
  }
  // The launcher's buffers (ring copies, chunk columns) grow and shrink by
  // megabytes per chunk: kept in the heap instead of being unmapped and
  // faulted back in (page faults were ~8% of its time on alloc_heavy).
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  const std::string library = FindPreloadLibrary();
  if (library.empty()) {
    std::fprintf(stderr, "heaprec: cannot find libheaprec.so beside %s\n", "the heaprec binary");
    return 2;
  }
  const std::string program = ResolveCommand(options.command[0]);
  if (const std::string why = WhyUntraceable(program, getuid(), getgid()); !why.empty()) {
    std::fprintf(stderr, "heaprec: cannot trace %s: %s; nothing was run, no trace written\n",
                 program.c_str(), why.c_str());
    return 2;
  }
  // Where traces go and the session's room, before anything runs (preflight.h).
  std::string error;
  if (const std::string why = OutputProblem(options.output, options.command[0]); !why.empty()) {
    std::fprintf(stderr, "heaprec: %s; nothing was run\n", why.c_str());
    return 2;
  }
  const std::string session_dir = MakeSessionDir(SessionBases(), &error);
  if (session_dir.empty()) {
    std::fprintf(stderr, "heaprec: %s; nothing was run\n", error.c_str());
    return 2;
  }
  // Orphaned descendants are re-parented to us, so their exits are seen.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  InstallSignals();
  const pid_t child = Spawn(options, library, session_dir, &error);
  if (child < 0) {
    RemoveSessionDir(session_dir);
    std::fprintf(stderr, "heaprec: %s\n", error.c_str());
    return 127;
  }
  g_child.store(child);
  // The program waits when its rings are full, so the thread that drains
  // them comes first where the system allows it (root, CAP_SYS_NICE or
  // RLIMIT_NICE; else this fails and nothing changes), as perf record's
  // --realtime does for its reader. Set after the fork: the program keeps
  // its own priority. mt_handoff, whose four threads outnumber the cores:
  // 1.14 -> 0.96 s; alloc_heavy 0.76 -> 0.72 s; cppcheck unchanged.
  setpriority(PRIO_PROCESS, 0, kLauncherNice);
  // Each traced process holds a pidfd, its trace and its region file open
  // here (region_reader.h): room for large process trees. After the fork
  // too: the program keeps its own limit.
  struct rlimit files;
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }

  // Not destroyed: the exit frees it (session.h). A global holds it, so
  // that a leak checker sees it reachable.
  static Session* kept_session = nullptr;
  kept_session = new Session(session_dir, options);
  Session& session = *kept_session;
  session.SetMainPid(child);
  session.SetPreloadLibrary(library);
  int child_status = 0;
  bool child_done = false;
  int stops_after_exit = -1;
  uint64_t last_scan = 0;
  uint64_t last_wait = 0;
  for (;;) {
    int status = 0;
    pid_t reaped = 0;
    // On SIGCHLD, and every 100 ms in case one was missed.
    const uint64_t before = NowNs();
    const bool ask = g_child_signal.exchange(0) != 0 || before - last_wait > 100000000;
    if (ask) last_wait = before;
    while (ask && (reaped = waitpid(-1, &status, WNOHANG)) > 0) {
      session.SetExitStatus(reaped, status);
      if (reaped == child) {
        child_status = status;
        child_done = true;
        g_child.store(0);
        stops_after_exit = g_stop_signals.load();
      }
    }
    const uint64_t now = NowNs();
    const bool scan =
        child_done || now - last_scan > 5000000 || session.RegionsMayHaveAppeared(now);
    if (scan) last_scan = now;
    const bool moved = session.Step(now, scan);
    for (const std::string& e : session.TakeErrors()) std::fprintf(stderr, "%s\n", e.c_str());
    if (child_done && session.AllDone()) break;
    // After the program exited, a stop signal ends the wait for descendants.
    if (child_done && g_stop_signals.load() > stops_after_exit) {
      session.FinishAll();
      break;
    }
    if (!moved) {
      // A sample (--sample-rate) brings a record now and then: the launcher
      // waking 5,000 times a second took a core's share from a program
      // whose threads outnumber the cores (mt_handoff sampled: 1.72x).
      const timespec pause = {0, (options.sample_rate != 0 ? 1000 : 200) * 1000};
      const uint64_t slept_from = NowNs();
      nanosleep(&pause, nullptr);
      session.NoteSlept(NowNs() - slept_from);
    }
  }
  for (const std::string& e : session.TakeErrors()) std::fprintf(stderr, "%s\n", e.c_str());
  RemoveSessionDir(session_dir);
  for (const TraceResult& r : session.results()) {
    if (!r.error.empty()) std::fprintf(stderr, "heaprec: %s\n", r.error.c_str());
  }
  if (!options.quiet) PrintSummary(session.results(), options);
  if (options.leak_check != Options::LeakCheck::kNo) {
    std::string error;
    const int64_t errors = RunLeakGate(session.results(), options, suppressions, &error);
    if (errors < 0) {
      std::fprintf(stderr, "heaprec: %s\n", error.c_str());
      return options.error_exitcode != 0 ? options.error_exitcode : 1;
    }
    // A program a signal ended keeps that status, leaks or not, as under
    // valgrind (which then kills itself with the signal): a crash says more.
    const bool killed = child_status != -1 && WIFSIGNALED(child_status);
    if (errors > 0 && options.error_exitcode != 0 && !killed) return options.error_exitcode;
  }
  return ExitCode(child_status);
}

}  // namespace
}  // namespace heaprec::recorder::launcher

int main(int argc, char** argv) {
  using namespace heaprec::recorder::launcher;
  Options options;
  std::string error;
  if (!ParseOptions(argc, argv, &options, &error)) {
    std::fprintf(stderr, "heaprec: %s\n", error.c_str());
    return 2;
  }
  if (options.help) {
    std::fputs(UsageText().c_str(), stdout);
    return 0;
  }
  if (options.version) {
    std::printf("%s\n", heaprec::format::VersionLine("heaprec").c_str());
    return 0;
  }
  if (options.compare_allocators) return RunCompareAllocators(options);
  if (options.attach_pid != 0) return RunAttach(options);
  if (options.control != Options::Control::kNone) {
    const ControlOutcome out =
        SwitchRecording(options.control_pid, options.control == Options::Control::kStart);
    std::fprintf(out.exit_code == 0 ? stdout : stderr, "%s\n", out.line.c_str());
    return out.exit_code;
  }
  return Run(options);
}
