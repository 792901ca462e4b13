// One replay run's measurements, and the line a bench worker prints them as
// on stdout for the parent ("key=value" pairs, one line):
//   wall_ns=.. cpu_ns=.. minor_faults=.. baseline_rss=.. peak_rss=.. end_rss=..
//   released_rss=.. malloc_object=PATH release=CALL [curve=OPS:BYTES,...]
// RSS values are bytes above the worker's baseline (its RSS once the op
// tables were mapped and its threads created, just before the clock), so
// they count what the allocator holds, not the replayer itself.
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
  uint64_t baseline_rss = 0;  // absolute
  uint64_t peak_rss = 0;      // VmHWM during the replay, above baseline
  uint64_t end_rss = 0;       // right after the replay, above baseline
  uint64_t released_rss = 0;  // after ReleaseFreeMemory, above baseline
  std::string malloc_object;  // the library that served malloc
  std::string release;        // the release call made
  std::string curve;          // --plot: "ops:bytes,..." RSS above baseline; "" if not sampled
};

std::string FormatSample(const RunSample& s);
bool ParseSample(const std::string& line, RunSample* s);

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_BENCH_SAMPLE_H_
