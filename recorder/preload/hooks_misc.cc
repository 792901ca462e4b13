// Hooks that keep the trace's context right: dlclose (modules unloaded) and
// pthread_setname_np (thread names); _exit and _Exit, which end the process
// without atexit handlers, so they ask for the leak scan at the end first
// (leak_scan_request.h); exit and __libc_start_main's call of main, after
// which the stack below is dead and is cleared for the leak scan
// (stack_scrub.h), and which with _exit tell the launcher the exit code
// (exit_announce.h); and sigprocmask, which answers
// libunwind's calls without a system call inside a slow capture
// (signal_hold.h) and otherwise is glibc's. dlopen is deliberately not wrapped: glibc
// resolves a relative name against the RUNPATH of dlopen's caller, which a
// wrapper would change; new objects are logged instead when the first stack
// through them is seen (ScanModulesIfChanged).
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "recorder/preload/exit_announce.h"
#include "recorder/preload/export.h"
#include "recorder/preload/leak_scan_request.h"
#include "recorder/preload/module_scan.h"
#include "recorder/preload/recorder.h"
#include "recorder/preload/signal_hold.h"
#include "recorder/preload/stack_scrub.h"
#include "recorder/preload/unwind_rules.h"

namespace pre = heaprec::recorder::preload;

namespace {

using DlcloseFn = int (*)(void*);
using SetnameFn = int (*)(pthread_t, const char*);
DlcloseFn g_dlclose;
SetnameFn g_setname;

}  // namespace

// Inside a SignalHold every signal is blocked already, which is what a
// caller there (libunwind around its cache lock) asks for: report the full
// mask and change nothing. Elsewhere: glibc's sigprocmask is its
// pthread_sigmask with errno.
HEAPREC_EXPORT_C int sigprocmask(int how, const sigset_t* set, sigset_t* old) {
  if (pre::SignalsHeld()) {
    if (old != nullptr) sigfillset(old);
    return 0;
  }
  const int err = pthread_sigmask(how, set, old);
  if (err != 0) {
    errno = err;
    return -1;
  }
  return 0;
}

HEAPREC_EXPORT_C int dlclose(void* handle) {
  if (g_dlclose == nullptr) g_dlclose = reinterpret_cast<DlcloseFn>(dlsym(RTLD_NEXT, "dlclose"));
  if (g_dlclose == nullptr) return -1;
  // Unwind rules learned from the unloaded code must not outlive it: drop
  // them before (rules learned during the unload) and after.
  pre::InvalidateUnwindRules();
  const int rc = g_dlclose(handle);
  pre::InvalidateUnwindRules();
  pre::ModulesChanged();
  return rc;
}

HEAPREC_EXPORT_C int pthread_setname_np(pthread_t thread, const char* name) {
  if (g_setname == nullptr) {
    g_setname = reinterpret_cast<SetnameFn>(dlsym(RTLD_NEXT, "pthread_setname_np"));
  }
  if (g_setname == nullptr) return -1;
  const int rc = g_setname(thread, name);
  if (rc == 0 && pthread_equal(thread, pthread_self())) {
    pre::ThreadRenamed(static_cast<int32_t>(gettid()), name);
  }
  return rc;
}

namespace {

[[noreturn]] void ExitGroup(int status) {
  pre::AnnounceExitCode(status);
  pre::FinalLeakScan();
  for (;;) syscall(SYS_exit_group, status);  // what glibc's _exit does
}

}  // namespace

HEAPREC_EXPORT_C void _exit(int status) { ExitGroup(status); }
HEAPREC_EXPORT_C void _Exit(int status) { ExitGroup(status); }

namespace {

int (*g_main)(int, char**, char**);

// main, then the dead stack it leaves below is cleared before exit runs its
// handlers over it.
int MainThenScrub(int argc, char** argv, char** envp) {
  const int status = g_main(argc, argv, envp);
  pre::AnnounceExitCode(status);  // libc's exit(status) does not pass through our exit
  if (pre::LeakScansOn()) pre::ScrubStackBelowHere();
  return status;
}

}  // namespace

HEAPREC_EXPORT_C [[noreturn]] void exit(int status) {
  pre::AnnounceExitCode(status);
  if (pre::LeakScansOn()) pre::ScrubStackBelowHere();
  const pre::ExitFn real = pre::RealExit();
  if (real != nullptr) real(status);
  for (;;) syscall(SYS_exit_group, status);
}

HEAPREC_EXPORT_C int __libc_start_main(int (*main)(int, char**, char**), int argc, char** argv,
                                       void (*init)(), void (*fini)(), void (*rtld_fini)(),
                                       void* stack_end) {
  const pre::StartMainFn real = pre::RealStartMain();
  if (real == nullptr) {
    for (;;) syscall(SYS_exit_group, 127);  // cannot happen: glibc defines it
  }
  g_main = main;
  return real(MainThenScrub, argc, argv, init, fini, rtld_fini, stack_end);
}
