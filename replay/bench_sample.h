// One replay run's measurements, and the line a bench worker prints them as
// on stdout for the parent ("key=value" pairs, one line):
//   wall_ns=.. cpu_ns=.. minor_faults=.. baseline_rss=.. peak_rss=.. end_rss=..
//   released_rss=.. baseline_anon_rss=.. allocator_file_rss=.. ready_ns=..
//   ready_cpu_ns=.. malloc_object=PATH release=CALL [curve=OPS:BYTES,...]
// RSS values are bytes above the worker's baseline (its RSS once the op
// tables were mapped and its threads created, just before the clock): what
// the replay made the allocator grow by. baseline_anon_rss (RssAnon at the
// baseline) and allocator_file_rss (the resident pages of the preloaded
// allocator's library file; 0 for glibc) give the allocator's start-up
// memory (StartupRss below). ready_ns (CLOCK_MONOTONIC, absolute) and
// ready_cpu_ns (the worker's CPU time since it was spawned) are taken first
// thing in the worker's main(), after a malloc/free pair forced through the
// allocator: the allocator's library loaded, relocated and initialised, as
// a program under it pays before its own first line; with the parent's
// spawn_ns they give the allocator's start-up time (StartupNs below).
// Pure functions; allocate (parent side and after the timed part only).
#ifndef HEAPREC_REPLAY_BENCH_SAMPLE_H_
#define HEAPREC_REPLAY_BENCH_SAMPLE_H_

#include <cstdint>
#include <string>

namespace heaprec::replay {

struct RunSample {
  uint64_t wall_ns = 0;
  uint64_t cpu_ns = 0;
  uint64_t minor_faults = 0;
  uint64_t baseline_rss = 0;        // absolute
  uint64_t peak_rss = 0;            // VmHWM during the replay, above baseline
  uint64_t end_rss = 0;             // right after the replay, above baseline
  uint64_t released_rss = 0;        // after ReleaseFreeMemory, above baseline
  uint64_t baseline_anon_rss = 0;   // absolute: RssAnon at the baseline
  uint64_t allocator_file_rss = 0;  // absolute, at the baseline
  uint64_t ready_ns = 0;            // CLOCK_MONOTONIC when the worker's main() began
  uint64_t ready_cpu_ns = 0;        // the worker's CPU time then (since its spawn)
  std::string malloc_object;        // the library that served malloc
  std::string release;              // the release call made
  std::string curve;                // --plot: "ops:bytes,..." RSS above baseline; "" if not sampled
  // Parent side, not on the line: the baseline_anon_rss of the null replay's
  // worker run just before this one (no allocator preloaded: glibc's malloc,
  // which the null replay never calls), or 0 if none.
  uint64_t reference_anon_rss = 0;
  // Parent side: CLOCK_MONOTONIC just before this worker was spawned; and
  // the same round's null worker's (ready_ns - spawn_ns) and ready_cpu_ns,
  // or 0 when there is none.
  uint64_t spawn_ns = 0;
  uint64_t reference_ready_span_ns = 0;
  uint64_t reference_ready_cpu_ns = 0;
};

// The allocator's start-up memory, what `ps` would show more for a program
// under it than under glibc before it allocates: the anonymous memory at the
// baseline beyond the reference's (same program, same point: the replayer,
// its op image and threads; so the allocator's metadata, arenas and caches
// made at start-up, its library's data and bss, minus what glibc's malloc
// held there) plus its library's file pages. Negative when the allocator
// starts smaller than glibc; 0 without a reference.
int64_t StartupRss(const RunSample& s);

// The allocator's start-up time, what a program pays more under it than
// under glibc before its first line runs: this worker's span from spawn to
// ready (exec, loading and relocating heapreplay and the preloaded
// library, its constructors, the first malloc) minus the reference's (the
// same round's null worker: the same executable, same path, no library
// preloaded); wall and CPU, in ns. Negative when it started faster than
// the reference (noise for glibc itself); 0 without a reference.
int64_t StartupNs(const RunSample& s);
int64_t StartupCpuNs(const RunSample& s);

// The program's allocator cost in this run: start-up + the replayed calls
// (wall_ns + StartupNs, cpu_ns + StartupCpuNs). What the differences to the
// reference are computed on, run by run.
int64_t WithStartupWallNs(const RunSample& s);
int64_t WithStartupCpuNs(const RunSample& s);

std::string FormatSample(const RunSample& s);
bool ParseSample(const std::string& line, RunSample* s);

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_BENCH_SAMPLE_H_
