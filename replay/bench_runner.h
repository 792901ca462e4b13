// RunWorker: one bench worker (bench_worker.h) in a fresh process: this
// executable (/proc/self/exe) re-run in worker mode with LD_PRELOAD set to
// the allocator's library (removed for glibc), the compiled image's fd
// inherited. Waits for it and parses its RunSample line; sets its spawn_ns
// (CLOCK_MONOTONIC just before posix_spawn: the start of the worker's
// start-up, bench_sample.h).
// Not thread-safe (one worker at a time, by design: runs must not overlap);
// allocates; for the bench command.
#ifndef HEAPREC_REPLAY_BENCH_RUNNER_H_
#define HEAPREC_REPLAY_BENCH_RUNNER_H_

#include <string>

#include "replay/allocators.h"
#include "replay/bench_sample.h"

namespace heaprec::replay {

// false when the worker could not run or failed: *error holds one line, or
// is empty when the worker printed its own line on stderr (exit 1).
bool RunWorker(int image_fd, const AllocatorSpec& spec, const std::string& touch, bool null,
               bool plot, RunSample* sample, std::string* error);

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_BENCH_RUNNER_H_
