// ExitAnnounce: how this process image is ending, written into its region
// for the launcher (RegionHeader::exit_wait_status). The launcher can
// waitpid only its own child and the orphans it inherits; a process that
// another one reaps (gcc's cc1 and as, a shell's commands) tells it here:
// exit(), _exit(), _Exit(), the return from main, and a fatal signal's
// handler (fatal_signal_scan.h) call it. The last call wins (an atexit
// handler that calls _exit, a fault in an exit handler).
//
// Async-signal-safe (two atomic stores); never allocates; errno preserved.
// Does nothing while the recorder is off or in a vfork child (which shares
// its parent's memory).
#ifndef HEAPREC_RECORDER_PRELOAD_EXIT_ANNOUNCE_H_
#define HEAPREC_RECORDER_PRELOAD_EXIT_ANNOUNCE_H_

namespace heaprec::recorder::preload {

// The process exits with code status & 0xff.
void AnnounceExitCode(int status);
// The process is ending by signal sig (its default action).
void AnnounceFatalSignal(int sig);

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_EXIT_ANNOUNCE_H_
