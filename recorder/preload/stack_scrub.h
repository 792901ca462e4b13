// Stack scrubbing for the leak scan: memcheck ignores stack memory below the
// stack pointer (it was popped: no-access, then undefined until written),
// and a native scan cannot tell such stale words from live ones: a pointer
// left in a returned function's frame would keep its block "still
// reachable". So where a stack's dead part stops mattering for the program,
// heaprec zeroes it: below the stack pointer when main returns or exit() is
// called (before exit's handlers push their frames over main's old ones),
// and when a thread ends (glibc keeps its stack for the next thread; a leak
// scan reads it as memory). Whole pages are given back (MADV_DONTNEED: they
// read as zeros), the rest is cleared.
//
// Only with leak scans on. Never allocates; async-signal-safe (system calls
// and a stack buffer); errno preserved. Called by the exit hooks, the
// __libc_start_main wrapper and the thread-exit destructor.
#ifndef HEAPREC_RECORDER_PRELOAD_STACK_SCRUB_H_
#define HEAPREC_RECORDER_PRELOAD_STACK_SCRUB_H_

#include <cstdint>

namespace heaprec::recorder::preload {

// Zeroes the calling thread's stack below its current stack pointer (minus a
// margin for the caller's own use), down to the stack's lowest mapped byte.
void ScrubStackBelowHere();

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_STACK_SCRUB_H_
