// CompressionGovernor: decides, from how much of its time the launcher
// sleeps, whether traces are compressed at the writer's fast level.
//
// zstd is the launcher's largest cost on a program that allocates fast and
// frees in random order (tests/bench/churn: level 7 took 1.3 s of its 2.3 s
// run on 7.2 M allocations; level 1 0.25 s, for a trace 16% larger). While
// the launcher keeps up, the strong level costs the program nothing (the
// launcher has a core of its own), so it stays, however busy the launcher
// is. The fast level comes after a window in which threads of the program
// had to wait for room in their rings while the launcher was busy at least
// kSaturated of the time: it is falling behind, and every window more at the
// strong level stalls the program (tests/bench/mt_handoff: 1.03 -> 0.93 s
// when the switch no longer waits for a second such window; at level 1 from
// the start churn would take 1.25 s instead of 1.4). Waits while the
// launcher mostly slept are a burst that the fast level would not shorten
// (Python's start fills the rings once: busy 0.69; python3.11-dbg's bursts:
// busy 0.30-0.63), and a switch there would only grow the trace. Back to
// the strong level after a window without waits in which the launcher slept
// more than half of the time (at the strong level it would need about twice
// as much). Windows of 200 ms: at most five changes a second, each of which
// ends a zstd frame (TraceWriter).
//
// Header-only; one instance per launcher loop; not thread-safe.
#ifndef HEAPREC_RECORDER_LAUNCHER_COMPRESSION_GOVERNOR_H_
#define HEAPREC_RECORDER_LAUNCHER_COMPRESSION_GOVERNOR_H_

#include <cstdint>

namespace heaprec::recorder::launcher {

class CompressionGovernor {
 public:
  static constexpr uint64_t kWindowNs = 200 * 1000 * 1000;
  // Busy share of a window above which waits mean the launcher falls behind
  // (churn: 0.88-0.96; mt_handoff: 0.98-1.0; the bursts above: 0.30-0.69).
  static constexpr double kSaturated = 0.8;

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
    if (!fast_ && waits_ > 0 && busy >= kSaturated) {
      fast_ = true;
    } else if (fast_ && waits_ == 0 && busy < 0.45) {
      fast_ = false;
    }
    window_start_ns_ = now_ns;
    slept_ns_ = 0;
    waits_ = 0;
    return fast_;
  }
  bool fast() const { return fast_; }

 private:
  uint64_t window_start_ns_ = 0;
  uint64_t slept_ns_ = 0;
  uint64_t waits_ = 0;
  bool fast_ = false;
};

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_COMPRESSION_GOVERNOR_H_
