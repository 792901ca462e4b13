// Leak scans at fatal signals (fatal_signal_scan.h).
#include "recorder/preload/fatal_signal_scan.h"

#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>

#include "recorder/preload/exit_announce.h"
#include "recorder/preload/leak_scan_request.h"
#include "recorder/preload/recorder_state.h"

namespace heaprec::recorder::preload {
namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
                                 SIGTERM, SIGINT, SIGHUP, SIGQUIT};

// Whether the signal came from what the thread itself was doing: a fault
// (the kernel's si_code > 0) or abort() (SIGABRT the thread sent itself).
bool Synchronous(int sig, const siginfo_t* info) {
  if (info == nullptr) return false;
  if (info->si_code > 0) return true;
  return sig == SIGABRT && info->si_code == SI_TKILL && info->si_pid == getpid();
}

// Whether the interrupted instruction is in libheaprec.so's own code.
bool InOwnCode(const void* context) {
  if (context == nullptr) return true;
  const auto* uc = static_cast<const ucontext_t*>(context);
  const auto pc = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
  return pc >= g_recorder.own_start && pc < g_recorder.own_end;
}

void OnFatalSignal(int sig, siginfo_t* info, void* context) {
  const int saved = errno;
  AnnounceFatalSignal(sig);
  if (Tls().guard == 0) {
    FinalLeakScan(sig, /*guard_held=*/false, context);
  } else if (Synchronous(sig, info) && !InOwnCode(context)) {
    // Inside a hook, but in the allocator it called (heap corruption found
    // by malloc, a fault in it) or the unwinder: heaprec's own state is not
    // mid-change there (a ring is written only by heaprec's code, and never
    // around a call out), so the request can be written under the hook's
    // guard.
    FinalLeakScan(sig, /*guard_held=*/true, context);
  }
  // Otherwise heaprec's own code was interrupted (a ring may be mid-write, a
  // lock held): no scan; the launcher records why there was none.
  // The action is SIG_DFL again (SA_RESETHAND). A fault (si_code > 0, from
  // the kernel) happens again when the handler returns; a sent signal is
  // sent again, blocked until the handler returns, then ends the process.
  if (info == nullptr || info->si_code <= 0) {
    syscall(SYS_tgkill, getpid(), static_cast<pid_t>(syscall(SYS_gettid)), sig);
  }
  errno = saved;
}

}  // namespace

void InstallFatalSignalScans() {
  for (const int sig : kFatalSignals) {
    struct sigaction old;
    if (sigaction(sig, nullptr, &old) != 0) continue;
    if ((old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler != SIG_DFL) continue;
    struct sigaction sa = {};
    sa.sa_sigaction = OnFatalSignal;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, nullptr);
  }
}

}  // namespace heaprec::recorder::preload
