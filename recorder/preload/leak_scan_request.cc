// Asking for leak scans and waiting for them (leak_scan_request.h).
#include "recorder/preload/leak_scan_request.h"

#include <dlfcn.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "recorder/preload/fatal_signal_scan.h"
#include "recorder/preload/process_region.h"
#include "recorder/preload/recorder.h"
#include "recorder/preload/recorder_state.h"

// glibc's, without libstdc++: a handler run by exit() after those
// registered later (the rtld_fini that runs static destructors included).
extern "C" int __cxa_atexit(void (*fn)(void*), void* arg, void* dso_handle);

namespace heaprec::recorder::preload {
namespace {

// Waits until scans_done reaches ticket, rechecking that the launcher
// lives every 100 ms.
void WaitForScan(uint32_t ticket) {
  RegionHeader& h = Header();
  uint64_t seen = 0;
  uint32_t still = 0;
  for (;;) {
    const uint32_t done = h.scans_done.load(std::memory_order_acquire);
    if (static_cast<int32_t>(done - ticket) >= 0) return;
    if (h.launcher_gone.load(std::memory_order_relaxed)) return;
    const timespec wait = {0, 100 * 1000 * 1000};
    const long r = syscall(SYS_futex, reinterpret_cast<uint32_t*>(&h.scans_done), FUTEX_WAIT, done,
                           &wait, nullptr, 0);
    if (r != 0 && errno == ETIMEDOUT &&
        !LauncherAlive(h, g_recorder.config.launcher_pid, seen, still)) {
      h.launcher_gone.store(1, std::memory_order_relaxed);
      return;
    }
  }
}

void AtExit(void*) { FinalLeakScan(); }

ExitFn g_exit;
StartMainFn g_start_main;

void OnScanSignal(int) {
  const int saved = errno;
  ThreadState& ts = Tls();
  if (ts.guard != 0) {
    ts.pending |= kPendingScan;  // asked for by Leave()
  } else {
    RequestLeakScan(ScanReason::kSignal, nullptr);
  }
  errno = saved;
}

// Writes the request and waits for the scan; the caller holds the guard.
void Ask(ThreadState& ts, ScanReason reason, const char* label, int fatal_signal,
         const void* context, bool leave_guard) {
  const uint32_t ticket = Header().scans_requested.fetch_add(1, std::memory_order_acq_rel) + 1;
  char name[32] = "leak-check-";
  if (label == nullptr && reason != ScanReason::kExit) {
    name[11 + FormatDecimal(ticket, name + 11)] = '\0';
    label = name;
  }
  RawRecord r = {};
  r.api = kLeakScanRequest;
  r.address = static_cast<uint64_t>(gettid());
  // The interrupted context's address in the bits above (ring.h); none
  // where it would not fit (above 2^48: 5-level paging).
  const auto at = reinterpret_cast<uintptr_t>(context);
  r.size = static_cast<uint64_t>(reason) | static_cast<uint64_t>(fatal_signal & 0xff) << 8 |
           (at < (uint64_t{1} << 48) ? static_cast<uint64_t>(at) << 16 : 0);
  r.extra = label == nullptr ? UINT64_MAX : LogLabel(label);
  WriteControl(ts, r);
  if (leave_guard) Leave(ts);
  WaitForScan(ticket);
}

}  // namespace

void RequestLeakScan(ScanReason reason, const char* label, int fatal_signal, const void* context) {
  if (!g_recorder.config.leak_scan) return;
  const int saved = errno;
  ThreadState& ts = Tls();
  if (!Enter(ts)) {
    errno = saved;
    return;
  }
  if (getpid() != Header().pid) {  // a vfork child: its parent's memory
    Leave(ts);
    errno = saved;
    return;
  }
  Ask(ts, reason, label, fatal_signal, context, /*leave_guard=*/true);
  errno = saved;
}

void FinalLeakScan(int fatal_signal, bool guard_held, const void* context) {
  if (!g_recorder.config.leak_scan || g_recorder.mode.load(std::memory_order_acquire) != kOn) {
    return;
  }
  // A vfork child (its _exit after a failed exec) shares its parent's
  // memory, this flag included: it neither scans nor marks the scan taken.
  if (getpid() != Header().pid) return;
  uint32_t state = 0;
  if (g_recorder.final_scan.compare_exchange_strong(state, 1, std::memory_order_acq_rel)) {
    ThreadState& ts = Tls();
    if (!guard_held) {
      RequestLeakScan(ScanReason::kExit, nullptr, fatal_signal, context);
    } else if (ts.in_fork == 0 && ts.ring.ring != nullptr &&
               ts.generation == g_recorder.generation.load(std::memory_order_acquire) &&
               Header().launcher_gone.load(std::memory_order_relaxed) == 0) {
      const int saved = errno;
      Ask(ts, ScanReason::kExit, nullptr, fatal_signal, context, /*leave_guard=*/false);
      errno = saved;
    }
    g_recorder.final_scan.store(2, std::memory_order_release);
    return;
  }
  // Another thread's scan runs: wait it out (1 ms steps), unless the
  // launcher is gone.
  while (g_recorder.final_scan.load(std::memory_order_acquire) == 1 &&
         Header().launcher_gone.load(std::memory_order_relaxed) == 0) {
    const timespec pause = {0, 1000 * 1000};
    nanosleep(&pause, nullptr);
  }
}

bool LeakScansOn() { return g_recorder.config.leak_scan; }
// Resolved on first use too: an image that does not record (not run by
// heaprec, or not followed) never calls InstallLeakScans, and its
// __libc_start_main and exit still pass through the hooks.
ExitFn RealExit() {
  if (g_exit == nullptr) g_exit = reinterpret_cast<ExitFn>(dlsym(RTLD_NEXT, "exit"));
  return g_exit;
}
StartMainFn RealStartMain() {
  if (g_start_main == nullptr) {
    g_start_main = reinterpret_cast<StartMainFn>(dlsym(RTLD_NEXT, "__libc_start_main"));
  }
  return g_start_main;
}

void InstallLeakScans() {
  RealExit();
  RealStartMain();
  if (!g_recorder.config.leak_scan) return;
  __cxa_atexit(AtExit, nullptr, nullptr);
  InstallFatalSignalScans();
  const int sig = g_recorder.config.scan_signal;
  if (sig <= 0 || sig >= NSIG) return;
  struct sigaction old;
  if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) return;
  struct sigaction sa = {};
  sa.sa_handler = OnScanSignal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, nullptr);
}

}  // namespace heaprec::recorder::preload
