// CompressionGovernor: decides, from how much of its time the launcher
// sleeps, whether traces are compressed at the writer's fast level.
//
// zstd is the launcher's largest cost on a program that allocates fast and
// frees in random order (tests/bench/churn: level 7 took 1.3 s of its 2.3 s
// run on 7.2 M allocations; level 1 0.25 s, for a trace 16% larger). While
// the launcher keeps up, the strong level costs the program nothing (the
// launcher has a core of its own), so it stays, however busy the launcher
// is; when threads of the program had to wait for room in their rings in
// two windows in a row (the launcher keeps falling behind, not a burst:
// Python's start fills the rings once, and its trace would grow 20% for
// nothing), the fast level; back to the strong
// level after a window without waits in which the launcher slept more than
// half of the time (at the strong level it would need about twice as much).
// Windows of 200 ms: at most five changes a second, each of which ends a
// zstd frame (TraceWriter).
//
// Header-only; one instance per launcher loop; not thread-safe.
#ifndef HEAPREC_RECORDER_LAUNCHER_COMPRESSION_GOVERNOR_H_
#define HEAPREC_RECORDER_LAUNCHER_COMPRESSION_GOVERNOR_H_

#include <cstdint>

namespace heaprec::recorder::launcher {

class CompressionGovernor {
 public:
  static constexpr uint64_t kWindowNs = 200 * 1000 * 1000;

  // Once per loop turn: the time now, the nanoseconds the loop slept and
  // the waits of producers for ring room since the last call. Returns
  // whether to compress fast.
  bool Update(uint64_t now_ns, uint64_t slept_ns, uint64_t producer_waits) {
    slept_ns_ += slept_ns;
    waits_ += producer_waits;
    if (window_start_ns_ == 0) window_start_ns_ = now_ns;
    const uint64_t span = now_ns - window_start_ns_;
    if (span < kWindowNs) return fast_;
    const double busy = 1.0 - static_cast<double>(slept_ns_) / static_cast<double>(span);
    const bool waited = waits_ > 0;
    if (!fast_ && waited && waited_before_) {
      fast_ = true;
    } else if (fast_ && waits_ == 0 && busy < 0.45) {
      fast_ = false;
    }
    window_start_ns_ = now_ns;
    slept_ns_ = 0;
    waits_ = 0;
    waited_before_ = waited;
    return fast_;
  }
  bool fast() const { return fast_; }

 private:
  uint64_t window_start_ns_ = 0;
  uint64_t slept_ns_ = 0;
  uint64_t waits_ = 0;
  bool waited_before_ = false;  // in the window before
  bool fast_ = false;
};

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_COMPRESSION_GOVERNOR_H_
