// One run of a program itself (not recorded, not replayed) under one
// allocator, for heaprec --compare-allocators: fork, LD_PRELOAD set to the
// allocator's library (glibc: none; a user's LD_PRELOAD is kept after it),
// exec, and wait4 for the program's wall time (monotonic clock from fork to
// reap), CPU time (user + system of the program and the children it
// waited for) and max RSS (ru_maxrss, the largest of those processes).
// stdin is /dev/null; stdout and stderr go to /dev/null unless kept.
//
// ru_maxrss starts from the forked child's own resident pages before exec
// (the kernel keeps the larger), so a program smaller than the caller's
// anonymous memory shows the caller's; heaprec keeps it to a few MiB.
// Allocates (before the fork only); blocks until the program ends; not
// thread-safe (fork). Called by program_compare.cc.
#ifndef HEAPREC_REPLAY_PROGRAM_RUN_H_
#define HEAPREC_REPLAY_PROGRAM_RUN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "replay/allocators.h"

namespace heaprec::replay {

struct ProgramRun {
  double wall_s = 0;
  double cpu_s = 0;
  uint64_t max_rss_bytes = 0;
  int exit_code = 0;  // its exit code, or 128+N if signal N ended it
};

enum class ProgramOutput {
  kDiscard,   // stdout and stderr to /dev/null
  kKeep,      // as heaprec's
  kToStderr,  // both to heaprec's stderr (stdout carries JSON)
};

// False, with *error, only when the program could not be started at all
// (fork failed, exec failed: "cannot run 'X': No such file or directory").
bool RunProgramOnce(const std::vector<std::string>& command, const AllocatorSpec& allocator,
                    ProgramOutput output, ProgramRun* run, std::string* error);

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_PROGRAM_RUN_H_
