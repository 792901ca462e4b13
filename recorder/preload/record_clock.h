// The times of a thread's records: nanoseconds since the region's start
// (RegionHeader::start_monotonic_ns), never going back within a thread.
//
// Mostly the launcher's clock, published in the region header on a line
// every call reads anyway (launcher_gone): clock_gettime through the vDSO
// cost ~7 ns a record (~50 ms of alloc_heavy's 7.2 million). Every 64th
// record of a thread, and until the launcher publishes, the coarse clock
// itself (a vDSO read of the last tick, no TSC read): a launcher that falls
// behind (busy, descheduled) holds a thread's times back by at most 64
// records. The trace keeps 1 ms resolution.
//
// heaprec --precise-times (RegionHeader::precise_times, copied into each
// thread's clock when it claims a ring): program time instead. Enter reads
// CLOCK_MONOTONIC (vDSO, a TSC read) as the hook begins, Leave reads it again
// and adds the span to the thread's time inside hooks; a record's time is its
// hook's start minus the thread's earlier time inside hooks (the recorder's
// own work and the real allocator's calls). So the time between two records
// of a thread is the program's own work between the two calls (what a replay
// of the compute between calls needs); the trace keeps 1 us resolution and
// says so (format::kProgramTimeClock). Opt-in: two clock reads a call, about
// 55 ns (hot_path_benchmark).
//
// Header-only, async-signal-safe, no allocation; ThreadClock lives in the
// thread's state (recorder.h).
#ifndef HEAPREC_RECORDER_PRELOAD_RECORD_CLOCK_H_
#define HEAPREC_RECORDER_PRELOAD_RECORD_CLOCK_H_

#include <time.h>

#include <cstdint>

#include "recorder/shared/region_layout.h"

namespace heaprec::recorder::preload {

struct ThreadClock {
  uint64_t last_ns;  // the time of this thread's last record; 0 after a ring claim
  uint32_t reads;    // NowNs calls, for the periodic real clock read
  // reads & read_mask == 0 takes NowNs's slow path: 63 (every 64th call)
  // normally, 0 (every call) with --precise-times; set at a ring claim. A
  // mask in memory rather than a test of `precise` keeps the default path's
  // instructions as they were.
  uint32_t read_mask;
  // --precise-times only (set at a ring claim): the two reads per hook.
  uint32_t precise;   // 1: program time (above)
  uint32_t read_ns;   // what one clock read costs (CalibrateReadNs)
  uint64_t enter_ns;  // since the region's start, as the current hook began
  uint64_t hooks_ns;  // this thread's time inside earlier hooks (this region)
};

inline constexpr uint32_t kCoarseReadMask = 63;

// The coarse clock since the region's start. The coarse clock may trail the
// precise CLOCK_MONOTONIC reading taken at the start by up to a tick: clamped
// at 0 so that early records never underflow.
inline uint64_t CoarseNowNs(const RegionHeader& h) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  const uint64_t now =
      static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
  return now > h.start_monotonic_ns ? now - h.start_monotonic_ns : 0;
}

// CLOCK_MONOTONIC since the region's start (precise; ~20 ns through the vDSO).
inline uint64_t PreciseNowNs(const RegionHeader& h) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  const uint64_t now =
      static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
  return now > h.start_monotonic_ns ? now - h.start_monotonic_ns : 0;
}

// Called by Enter and Leave when c.precise. The span between the two reads
// misses about one read's cost (the part of the first before its sample and
// of the second after it), which the program did not spend either: added.
inline void HookBegins(const RegionHeader& h, ThreadClock& c) { c.enter_ns = PreciseNowNs(h); }
inline void HookEnds(const RegionHeader& h, ThreadClock& c) {
  const uint64_t now = PreciseNowNs(h);
  if (now > c.enter_ns) c.hooks_ns += now - c.enter_ns;
  c.hooks_ns += c.read_ns;
}

// The least time between two clock reads in a row, of 16 (about 20-30 ns
// through the vDSO): what one read costs.
inline uint32_t CalibrateReadNs(const RegionHeader& h) {
  uint64_t best = UINT64_MAX, last = PreciseNowNs(h);
  for (int i = 0; i < 16; ++i) {
    const uint64_t now = PreciseNowNs(h);
    if (now - last < best) best = now - last;
    last = now;
  }
  return best < 1000 ? static_cast<uint32_t>(best) : 0;
}

// A ring claim: times of this region from now on.
inline void StartClock(const RegionHeader& h, ThreadClock& c, bool precise) {
  c.last_ns = 0;
  c.hooks_ns = 0;
  c.precise = precise ? 1 : 0;
  c.read_mask = precise ? 0 : kCoarseReadMask;
  c.read_ns = precise ? CalibrateReadNs(h) : 0;
}

// With --precise-times: the current hook's start in program time. Out of
// line, so that the default path's registers stay as they were.
__attribute__((noinline, cold)) inline uint64_t ProgramNowNs(const ThreadClock& c) {
  return c.enter_ns > c.hooks_ns ? c.enter_ns - c.hooks_ns : 0;
}

// NowNs's slow path: the coarse clock, or the program time.
inline uint64_t SlowNowNs(const RegionHeader& h, const ThreadClock& c) {
  if (__builtin_expect(c.precise != 0, 0)) return ProgramNowNs(c);
  return CoarseNowNs(h);
}

inline uint64_t NowNs(const RegionHeader& h, ThreadClock& c) {
  uint64_t now = h.launcher_clock_ns.load(std::memory_order_relaxed);
  if (now == 0 || (++c.reads & c.read_mask) == 0) now = SlowNowNs(h, c);
  if (now > c.last_ns) c.last_ns = now;
  return c.last_ns;
}

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_RECORD_CLOCK_H_
