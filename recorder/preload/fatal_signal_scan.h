// The leak scan of a process that a signal is about to end (valgrind
// memcheck prints its leak summary after "Process terminating with default
// action of signal N" too): for each signal whose default action ends the
// process (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT,
// SIGHUP, SIGQUIT) and that still has that default action when recording
// starts, a one-shot handler (SA_RESETHAND, so the default is back the
// moment it runs) asks for the scan at the process's end, then lets the
// default action happen: a fault returns and faults again, a sent signal
// (kill, raise, abort) is sent again. The process still ends by the same
// signal, with its core dump, and the exit status the launcher reports is
// unchanged.
//
// Inside a hook, the scan is still asked for when the signal is the
// thread's own doing (a fault, abort()) outside heaprec's code: in the real
// allocator (heap corruption found by malloc aborts there) or the unwinder.
// Where the scan cannot be done the trace says so (a scan marked not done,
// "killed by SIGSEGV before its end could be scanned"): a signal that
// interrupts heaprec's own code (a ring may be mid-write, a lock held), a
// signal sent from outside while the thread is in a hook, SIGKILL, a stack
// overflow with no alternate signal stack, a handler the program installed
// itself (it decides).
//
// What a program sees: sigaction(SIG, NULL, &old) reports heaprec's handler
// instead of SIG_DFL for these signals until the program sets its own.
#ifndef HEAPREC_RECORDER_PRELOAD_FATAL_SIGNAL_SCAN_H_
#define HEAPREC_RECORDER_PRELOAD_FATAL_SIGNAL_SCAN_H_

namespace heaprec::recorder::preload {

// Installs the handlers (with leak scans on). Called once, by
// InstallLeakScans(), in each process image.
void InstallFatalSignalScans();

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_FATAL_SIGNAL_SCAN_H_
