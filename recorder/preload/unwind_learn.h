// UnwindLearn: fast_unwind.cc's slow path. Asks libunwind for the stack
// (unw_backtrace: the output, exact by definition) and, when asked to learn,
// walks the same stack with unw_step in lockstep, deriving a rule for each
// return address the walk passes and inserting it into unwind_rules.h.
//
// A rule is inserted only when it is proven for that IP (see Classify() in
// unwind_learn.cc): libunwind found CFI for it, it is no signal frame nor the
// frame right after one, the return address is at CFA-8, RBP is unchanged or
// saved in the frame, and two probe steps by libunwind on a copy of the frame
// with RSP, then RBP, moved show which of the two the CFA follows. Anything
// else is marked uncacheable.
//
// Thread-safe; learning takes a process-wide try-lock (never waits: without
// it, the capture is answered without learning); a fork waits until no
// thread is inside libunwind, and a capture that needs libunwind waits while
// a fork is pending (BlockUnwindForFork). Every signal is blocked on
// the thread while it runs (signal_hold.h). Async-signal-safe as far as
// libunwind is. Never allocates from the heap (a 1 MiB scratch mapping for
// the probes). Called only by FastBacktrace().
#ifndef HEAPREC_RECORDER_PRELOAD_UNWIND_LEARN_H_
#define HEAPREC_RECORDER_PRELOAD_UNWIND_LEARN_H_

#include <cstddef>
#include <cstdint>

namespace heaprec::recorder::preload {

struct LearnOutcome {
  // Every output frame was reached by learned kCfaRsp/kCfaRbp rules and the
  // walk ended at a kLast rule or at max: the stack between the first frame
  // and stack_hi is this thread's, and rule walks may read it.
  bool covered = false;
  uintptr_t stack_hi = 0;  // the outermost output frame's RSP
};

// Fills ips like unw_backtrace called by FastBacktrace's caller, where
// first_ip is FastBacktrace's return address. Called from FastBacktrace
// with at most a few frames between (fast_unwind.cc's slow path, on the
// spare stack or not): it skips every frame before first_ip. With learn,
// also learns rules of generation gen; missed_ip, if not 0, is the IP the
// rule walk had no rule for: it gets a verdict (a rule or uncacheable).
// max must be at most kFastUnwindMaxFrames.
__attribute__((noinline)) int SlowBacktrace(void** ips, int max, uintptr_t first_ip, bool learn,
                                            uint32_t gen, uintptr_t missed_ip,
                                            LearnOutcome* outcome);

// Learns the rule of one return address, ip, whose frame has RSP sp and RBP
// rbp: where a rule walk of this thread's stack stopped for want of a rule.
// One libunwind step from that state, classified as a whole learned walk
// classifies each frame (a rule, kLast, or kUncacheable). Returns whether ip
// now has a rule of generation gen; false also when another thread holds
// the learning scratch or libunwind could not start there (then the caller
// takes the slow path). Much cheaper than SlowBacktrace with learning: one
// step instead of unw_backtrace and a whole unw_step walk, each step ~1 us
// of CFI lookup plus libunwind's memory checks (system calls).
bool LearnAt(uintptr_t ip, uintptr_t sp, uintptr_t rbp, uint32_t gen);

// Fork handlers. BlockUnwindForFork (prepare) waits until no other thread
// is inside libunwind and keeps them out: libunwind's own locks (its cache's
// mutex, the loader's) are then free at the fork, and stay free in the child.
// The caller must not capture meanwhile (the recorder's fork window).
// UnblockUnwindAfterFork (parent) lets them in again.
// The learner's scratch memory (mapped now if it was not yet): it holds
// copies of stacks, which the leak scan must leave out; nullptr on failure.
const void* UnwindScratchMemory(size_t* bytes);

void BlockUnwindForFork();
void UnblockUnwindAfterFork();

// In a fork child: frees the learning lock (whoever held it is gone) and the
// gate BlockUnwindForFork closed.
void ResetUnwindLearnAfterFork();

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_UNWIND_LEARN_H_
