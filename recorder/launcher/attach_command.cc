// heaprec -p (attach_command.h).
#include "recorder/launcher/attach_command.h"

#include <dlfcn.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "analyzers/human_bytes.h"
#include "analyzers/process_end.h"
#include "recorder/launcher/attach_files.h"
#include "recorder/launcher/attach_preflight.h"
#include "recorder/launcher/background_symbolizer.h"
#include "recorder/launcher/library_path.h"
#include "recorder/launcher/preflight.h"
#include "recorder/launcher/proc_files.h"
#include "recorder/launcher/process_memory.h"
#include "recorder/launcher/remote_call.h"
#include "recorder/launcher/run_end.h"
#include "recorder/launcher/session.h"
#include "recorder/shared/region_layout.h"

namespace heaprec::recorder::launcher {
namespace {

// How long a call into the process may take: dlopen of the recorder, or
// heaprec_attach patching every module's GOT.
constexpr int kCallTimeoutMs = 30000;
// How long to look for a moment when a call is safe (remote_call.h).
constexpr int kHoldTimeoutMs = 5000;

std::atomic<int> g_stop{0};

void OnStop(int) { g_stop.store(1); }

uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// Alive and not a zombie.
bool Alive(pid_t pid) {
  const std::string stat = ReadProcFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z' &&
         stat[close + 2] != 'X';
}

// Whether pid maps a file under folder (as the process names it).
bool MapsFileUnder(pid_t pid, const std::string& folder) {
  std::string error;
  for (const Mapping& m : ReadMappings(pid, &error)) {
    if (m.path.compare(0, folder.size() + 1, folder + "/") == 0) return true;
  }
  return false;
}

std::string ProgramOf(pid_t pid) {
  char buf[PATH_MAX];
  const std::string link = "/proc/" + std::to_string(pid) + "/exe";
  const ssize_t n = readlink(link.c_str(), buf, sizeof(buf) - 1);
  if (n <= 0) return ReadProcFile("/proc/" + std::to_string(pid) + "/comm");
  std::string path(buf, static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// What the launcher puts in the environment of a program it starts
// (main.cc Spawn), as heaprec_attach reads it. No marker or leak-scan
// signal: installing a handler would change what a signal does to a program
// that did not ask for one.
std::string Settings(const Options& o, const std::string& session, int launcher_pid) {
  std::string s;
  const auto add = [&s](const char* name, const std::string& value) {
    s += std::string(name) + "=" + value + "\n";
  };
  add(kSessionEnv, session);
  add(kLauncherPidEnv, std::to_string(launcher_pid));
  add(kDepthEnv, std::to_string(o.depth));
  add(kFollowEnv, "0");
  add(kMarkSignalEnv, "0");
  add(kFreeStacksEnv, o.free_stacks ? "1" : "0");
  add(kPreciseTimesEnv, o.precise_times ? "1" : "0");
  add(kLeakScanEnv, "0");
  add(kScanSignalEnv, "0");
  add(kSampleRateEnv, std::to_string(o.sample_rate));
  if (const char* seed = getenv(kSampleSeedEnv)) add(kSampleSeedEnv, seed);
  return s;
}

// heaprec_attach's negative answers (recorder/preload/attach.cc).
std::string AttachError(int64_t code) {
  switch (code) {
    case -1:
      return "the process is being recorded already: started by heaprec (heaprec --stop PID and "
             "--start PID switch that recording) or attached by another heaprec -p";
    case -2:
      return "the recorder got no session folder";
    case -3:
      return "the recorder could not create its region in the session folder";
    case -4:
      return "the recorder could not find its own functions";
    case -5:
      return "no module of the process calls malloc or operator new through its GOT";
    default:
      return "heaprec_attach answered " + std::to_string(code);
  }
}

// Set when the kernel refused ptrace: nothing was touched (exit status 2).
bool g_refused = false;

// "" if a thread was held, else why not (ptrace's refusal explained).
std::string HoldThread(pid_t pid, RemoteThread* t) {
  std::string error;
  if (t->Hold(pid, kHoldTimeoutMs, &error)) return "";
  if (error.find("Operation not permitted") != std::string::npos) {
    g_refused = true;
    return WhyPtraceRefused(ReadAttachFacts(pid));
  }
  return error;
}

// The path of a libheaprec.so the process has loaded already (an earlier
// attach), or "".
std::string LoadedRecorder(pid_t pid) {
  std::string error;
  for (const Mapping& m : ReadMappings(pid, &error)) {
    // A copy whose folder is gone cannot be named again.
    if (m.deleted || m.path.size() < 14) continue;
    if (m.path.compare(m.path.size() - 14, 14, "/libheaprec.so") == 0) return m.path;
  }
  return "";
}

// Loads files.load into pid (unless a libheaprec.so is there) and calls
// heaprec_attach. "" on success, else why not; *library: the recorder's
// path as the process names it.
std::string Inject(pid_t pid, const AttachFiles& files, const std::string& settings,
                   std::string* library) {
  RemoteThread t;
  if (std::string why = HoldThread(pid, &t); !why.empty()) return why;
  std::string error;
  uint64_t result = 0;
  *library = LoadedRecorder(pid);
  if (library->empty()) {
    uint64_t dlopen_fn = RemoteSymbol(pid, "libc.so", "dlopen", &error);
    if (dlopen_fn == 0) dlopen_fn = RemoteSymbol(pid, "libc.so", "__libc_dlopen_mode", &error);
    if (dlopen_fn == 0) dlopen_fn = RemoteSymbol(pid, "libdl.so", "dlopen", &error);
    if (dlopen_fn == 0) return "cannot find dlopen in the process: " + error;
    for (const std::string& file : files.load) {
      const uint64_t path = t.Push(file.c_str(), file.size() + 1, &error);
      if (path == 0) return error;
      if (!t.Call(dlopen_fn, {path, static_cast<uint64_t>(RTLD_NOW)}, kCallTimeoutMs, &result,
                  &error)) {
        return error;
      }
      if (result == 0) {
        std::string why = "the process's dlopen could not load " + file;
        if (const uint64_t dlerror_fn = RemoteSymbol(pid, "libc.so", "dlerror", &error);
            dlerror_fn != 0 && t.Call(dlerror_fn, {}, kCallTimeoutMs, &result, &error) &&
            result != 0) {
          why += ": " + t.ReadString(result, 512);
        }
        return why;
      }
    }
    *library = files.load.back();
  }
  const uint64_t attach_fn = RemoteSymbol(pid, *library, "heaprec_attach", &error);
  if (attach_fn == 0) return error;
  const uint64_t text = t.Push(settings.c_str(), settings.size() + 1, &error);
  if (text == 0) return error;
  if (!t.Call(attach_fn, {text}, kCallTimeoutMs, &result, &error)) return error;
  t.Release();
  const auto code = static_cast<int32_t>(result);
  return code == 0 ? "" : AttachError(code);
}

std::string Detach(pid_t pid, const std::string& library) {
  RemoteThread t;
  if (std::string why = HoldThread(pid, &t); !why.empty()) return why;
  std::string error;
  const uint64_t detach_fn = RemoteSymbol(pid, library, "heaprec_detach", &error);
  if (detach_fn == 0) return error;
  uint64_t result = 0;
  if (!t.Call(detach_fn, {}, kCallTimeoutMs, &result, &error)) return error;
  return "";
}

void InstallStopSignals() {
  struct sigaction sa = {};
  sa.sa_handler = OnStop;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaction(sig, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

}  // namespace

int RunAttach(const Options& o) {
  const pid_t pid = o.attach_pid;
  const AttachFacts facts = ReadAttachFacts(pid);
  if (const std::string why = WhyCannotAttach(facts); !why.empty()) {
    std::fprintf(stderr, "heaprec: cannot attach to process %d: %s; nothing was changed\n", pid,
                 why.c_str());
    return 2;
  }
  std::string library = FindPreloadLibrary();
  if (char* real = library.empty() ? nullptr : realpath(library.c_str(), nullptr)) {
    library = real;  // as /proc/PID/maps will name it
    std::free(real);
  }
  if (library.empty()) {
    std::fprintf(stderr, "heaprec: cannot find libheaprec.so beside the heaprec binary\n");
    return 2;
  }
  const std::string program = ProgramOf(pid);
  if (const std::string why = OutputProblem(o.output, program); !why.empty()) {
    std::fprintf(stderr, "heaprec: %s; nothing was changed\n", why.c_str());
    return 2;
  }
  std::string error;
  AttachFiles files;
  if (!PrepareAttachFiles(pid, facts.uid, library, &files, &error)) {
    if (!files.session_here.empty()) RemoveSessionDir(files.session_here);
    std::fprintf(stderr, "heaprec: %s; nothing was changed\n", error.c_str());
    return 2;
  }
  const std::string& session_dir = files.session_here;
  InstallStopSignals();
  SetSymbolizersIdle(false);  // the process runs on after the recording
  Session session(session_dir, o);
  session.SetAttachedPid(pid);
  session.SetPreloadLibrary(library);
  const std::string settings =
      Settings(o, files.session_there, SameNamespace(pid, "pid") ? static_cast<int>(getpid()) : 0);
  std::string recorder;  // libheaprec.so as the process names it
  if (const std::string why = Inject(pid, files, settings, &recorder); !why.empty()) {
    RemoveSessionDir(session_dir);
    std::fprintf(stderr, "heaprec: cannot attach to process %d (%s): %s%s\n", pid, program.c_str(),
                 why.c_str(), g_refused ? "; nothing was changed" : "");
    return g_refused ? 2 : 1;
  }
  const uint64_t start = NowNs();
  if (!o.quiet) {
    std::fprintf(stderr, "heaprec: attached to process %d (%s); recording until %s\n", pid,
                 program.c_str(),
                 o.duration_ms != 0
                     ? (std::to_string(o.duration_ms / 1000.0).substr(0, 6) + " s have passed, "
                                                                              "Ctrl-C or its end")
                           .c_str()
                     : "Ctrl-C or its end");
  }
  bool ended = false, exec = false;
  uint64_t last_scan = 0, last_check = 0;
  for (;;) {
    const uint64_t now = NowNs();
    const bool scan = now - last_scan > 5000000 || session.RegionsMayHaveAppeared(now);
    if (scan) last_scan = now;
    const bool moved = session.Step(now, scan);
    for (const std::string& e : session.TakeErrors()) std::fprintf(stderr, "%s\n", e.c_str());
    if (session.adopted() > 0 && session.AllDone()) {
      ended = true;  // the process ended: its trace is finished
      break;
    }
    if (g_stop.load() != 0) break;
    if (o.duration_ms != 0 && now - start >= o.duration_ms * 1000000) break;
    if (now - last_check > 100000000) {
      last_check = now;
      // An exec'd image has no recorder: the region is no longer mapped.
      if (Alive(pid) && !MapsFileUnder(pid, files.session_there)) {
        exec = true;
        break;
      }
    }
    if (!moved) {
      const timespec pause = {0, 200 * 1000};
      const uint64_t slept_from = NowNs();
      nanosleep(&pause, nullptr);
      session.NoteSlept(NowNs() - slept_from);
    }
  }
  if (!ended && !exec && Alive(pid)) {
    if (const std::string why = Detach(pid, recorder); !why.empty()) {
      std::fprintf(stderr, "heaprec: detaching from process %d: %s\n", pid, why.c_str());
    }
    // The records of calls that were inside the recorder as it stopped.
    const uint64_t until = NowNs() + 2000000000ull;
    while (NowNs() < until && Alive(pid)) {
      session.Step(NowNs(), true);
      if (session.CaughtUp()) break;
      const timespec pause = {0, 1000 * 1000};
      nanosleep(&pause, nullptr);
    }
  }
  session.FinishAll(exec);
  for (const std::string& e : session.TakeErrors()) std::fprintf(stderr, "%s\n", e.c_str());
  RemoveSessionDir(session_dir);
  const double seconds = static_cast<double>(NowNs() - start) / 1e9;
  int status = 0;
  for (const TraceResult& r : session.results()) {
    if (!r.error.empty()) {
      std::fprintf(stderr, "heaprec: %s\n", r.error.c_str());
      status = 1;
      continue;
    }
    if (o.quiet) continue;
    const std::string how =
        exec    ? "until it exec'd another program"
        : ended ? (r.exit_status == -1 ? std::string("until it ended")
                                       : "until it " + analyzers::ExitWords(r.exit_status, false))
                : "then detached; it runs on";
    std::fprintf(stderr,
                 "heaprec: wrote %s (%s): pid %d recorded for %.1f s, %s; %" PRIu64
                 " allocations, %" PRIu64 " frees, peak %s, live at the end %s, %" PRIu64
                 " stacks; next: heapreplay --leaks %s\n",
                 r.path.c_str(), analyzers::HumanBytes(r.bytes).c_str(), pid, seconds, how.c_str(),
                 r.allocations, r.frees, analyzers::HumanBytes(r.peak_bytes).c_str(),
                 analyzers::HumanBytes(r.leaked_bytes).c_str(), r.stacks, r.path.c_str());
  }
  if (!o.quiet) PrintSamplingNotice(session.results());
  if (session.results().empty()) {
    std::fprintf(stderr, "heaprec: no trace written (the recording never started)\n");
    return 1;
  }
  return status;
}

}  // namespace heaprec::recorder::launcher
