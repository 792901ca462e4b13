// One replay run's measurements, and the line a bench worker prints them as
// on stdout for the parent ("key=value" pairs, one line):
//   wall_ns=.. cpu_ns=.. minor_faults=.. baseline_rss=.. peak_rss=.. end_rss=..
//   released_rss=.. baseline_anon_rss=.. allocator_file_rss=..
//   malloc_object=PATH release=CALL [curve=OPS:BYTES,...]
// RSS values are bytes above the worker's baseline (its RSS once the op
// tables were mapped and its threads created, just before the clock): what
// the replay made the allocator grow by. baseline_anon_rss (RssAnon at the
// baseline) and allocator_file_rss (the resident pages of the preloaded
// allocator's library file; 0 for glibc) give the allocator's start-up
// memory (StartupRss below).
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
  std::string malloc_object;        // the library that served malloc
  std::string release;              // the release call made
  std::string curve;                // --plot: "ops:bytes,..." RSS above baseline; "" if not sampled
  // Parent side, not on the line: the baseline_anon_rss of the null replay's
  // worker run just before this one (no allocator preloaded: glibc's malloc,
  // which the null replay never calls), or 0 if none.
  uint64_t reference_anon_rss = 0;
};

// The allocator's start-up memory, what `ps` would show more for a program
// under it than under glibc before it allocates: the anonymous memory at the
// baseline beyond the reference's (same program, same point: the replayer,
// its op image and threads; so the allocator's metadata, arenas and caches
// made at start-up, its library's data and bss, minus what glibc's malloc
// held there) plus its library's file pages. Negative when the allocator
// starts smaller than glibc; 0 without a reference.
int64_t StartupRss(const RunSample& s);

std::string FormatSample(const RunSample& s);
bool ParseSample(const std::string& line, RunSample* s);

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_BENCH_SAMPLE_H_
