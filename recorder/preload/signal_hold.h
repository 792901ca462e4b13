// SignalHold: blocks every signal on the calling thread for the life of a
// slow stack capture (libunwind), with one system call each way, and tells
// libheaprec's sigprocmask (hooks_misc.cc) to answer calls made meanwhile
// without a system call.
//
// Why: Debian's libunwind keeps its register-state cache global and takes
// the cache's lock between two sigprocmask calls on every unw_step; a
// learned capture of a 50-frame stack made ~94 of those system calls (~280
// us on a virtual machine). Inside a hold every signal is already blocked,
// which is what libunwind's pairs ask for, so answering them "done" changes
// nothing but the cost.
//
// Nesting: signals are blocked while held, so no handler runs in a hold on
// the same thread; a capture in a handler that interrupted code outside a
// hold takes its own. A hold taken inside another does nothing (the outer
// one restores the mask). Async-signal-safe, never allocates, per thread
// (initial-exec TLS). Used by the unwinder's slow path (fast_unwind.cc
// around its switch to the spare stack, unwind_learn.cc).
#ifndef HEAPREC_RECORDER_PRELOAD_SIGNAL_HOLD_H_
#define HEAPREC_RECORDER_PRELOAD_SIGNAL_HOLD_H_

#include <signal.h>

namespace heaprec::recorder::preload {

class SignalHold {
 public:
  SignalHold();
  ~SignalHold();
  SignalHold(const SignalHold&) = delete;
  SignalHold& operator=(const SignalHold&) = delete;

 private:
  sigset_t saved_;
  bool outer_;  // this hold blocked the signals (not nested in another)
};

// Whether the calling thread is inside a SignalHold.
bool SignalsHeld();

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_SIGNAL_HOLD_H_
