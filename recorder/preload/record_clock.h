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
};

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

inline uint64_t NowNs(const RegionHeader& h, ThreadClock& c) {
  uint64_t now = h.launcher_clock_ns.load(std::memory_order_relaxed);
  if (now == 0 || (++c.reads & 63) == 0) now = CoarseNowNs(h);
  if (now > c.last_ns) c.last_ns = now;
  return c.last_ns;
}

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_RECORD_CLOCK_H_
