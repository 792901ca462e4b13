// SignalContextRegs: a thread's registers as a signal interrupted them, read
// from the ucontext_t its handler was given (on the thread's own stack, or
// its alternate signal stack), for the leak scan of a process ending on a
// fatal signal. ptrace gives the registers of the handler, and its stack
// pointer would have the scan read the handler's own frames (the recorder's)
// as the program's stack; memcheck's roots at such an end are the registers
// at the fault and the stack from there up.
//
// x86-64 Linux only (as the recorder). Reads the process's memory; the
// thread must be stopped (the launcher's ProcessStop holds it).
#ifndef HEAPREC_RECORDER_LAUNCHER_SIGNAL_CONTEXT_H_
#define HEAPREC_RECORDER_LAUNCHER_SIGNAL_CONTEXT_H_

#include <sys/types.h>
#include <sys/user.h>

#include <cstdint>

#include "recorder/leakscan/memory_source.h"

namespace heaprec::recorder::launcher {

// Overwrites the general registers, RSP, RIP and flags of *regs with those
// saved in the ucontext_t at context in memory's process; the rest (the
// segment bases: fs_base is the thread's TLS) stays. False, with *regs
// unchanged, if context is 0 or cannot be read.
bool SignalContextRegs(leakscan::MemorySource& memory, uint64_t context, user_regs_struct* regs);

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_SIGNAL_CONTEXT_H_
