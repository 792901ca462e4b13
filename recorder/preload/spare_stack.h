// CallOnStack: runs a function on another stack (a thread's spare stack,
// thread_block.h) and comes back, so that the unwinder's slow path (libunwind
// and learning, ~10 KiB deep) never runs on the program's stack, which may
// be 16 KiB in all (PTHREAD_STACK_MIN) or a coroutine's few pages.
//
// Unwindable: the switch keeps a frame pointer to the caller's frame and
// says so in its CFI (CFA = RBP + 16), so libunwind, stepping from a
// function on the spare stack, goes through the switch into the caller's
// frames on the original stack, as if the call had been direct (one more
// frame: the switch's own).
//
// x86-64 only (spare_stack_x86_64.S). The caller must block signals first
// (SignalHold) unless it knows no handler of the program can run meanwhile:
// a handler would run on the spare stack. Never allocates; async-signal-safe.
#ifndef HEAPREC_RECORDER_PRELOAD_SPARE_STACK_H_
#define HEAPREC_RECORDER_PRELOAD_SPARE_STACK_H_

namespace heaprec::recorder::preload {

// Calls fn(arg) with the stack pointer at stack_top (16-byte aligned, the
// end of the memory: the stack grows down from it) and returns when fn does.
extern "C" void heaprec_call_on_stack(void (*fn)(void*), void* arg, void* stack_top);

inline void CallOnStack(void (*fn)(void*), void* arg, void* stack_top) {
  heaprec_call_on_stack(fn, arg, stack_top);
}

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_SPARE_STACK_H_
