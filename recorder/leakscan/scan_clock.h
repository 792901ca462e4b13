// The clock the leak scan times its phases with (LeakScanStats): monotonic
// nanoseconds. Header-only; thread-safe.
#ifndef HEAPREC_RECORDER_LEAKSCAN_SCAN_CLOCK_H_
#define HEAPREC_RECORDER_LEAKSCAN_SCAN_CLOCK_H_

#include <chrono>
#include <cstdint>

namespace heaprec::recorder::leakscan {

inline uint64_t MonotonicNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace heaprec::recorder::leakscan

#endif  // HEAPREC_RECORDER_LEAKSCAN_SCAN_CLOCK_H_
