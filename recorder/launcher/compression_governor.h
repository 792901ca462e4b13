// CompressionGovernor: decides, from how much of its time the launcher
// sleeps, whether traces are compressed at the writer's fast level.
//
// zstd is the launcher's largest cost on a program that allocates fast and
// frees in random order (tests/bench/churn: level 7 took 1.3 s of its 2.3 s
// run on 7.2 M allocations; level 1 0.25 s, for a trace 16% larger). While
// the launcher keeps up, the strong level costs the program nothing (the
// launcher has a core of its own), so it stays, however busy the launcher is.
// The fast level comes after kToFast windows in a row in which threads of the
// program had to wait for room in their rings while the launcher was busy at
// least kSaturated of the time: it is falling behind, and every window more
// at the strong level stalls the program (tests/bench/churn: 1.43 -> 1.30 s,
// churn on 2 threads 1.72 -> 1.62 s against two windows of 200 ms; at level 1
// from the very start churn takes 1.25 s, but Python's trace grows 10% and
// cppcheck's 22%). Waits while the launcher mostly slept are a burst that the
// fast level would not shorten (python3.11-dbg: busy 0.25-0.54), and a start
// fills the rings once (Python: one window busy 0.93, then 0.77): a switch
// there would only grow the trace. Back to the strong level after kToStrong
// calm windows in a row: no waits, and the launcher slept more than half of
// the time (at the strong level it would need about twice as much). Windows
// of 50 ms; a change ends a zstd frame (TraceWriter), and the runs of windows
// keep changes at least 100 ms apart.
//
// Header-only; one instance per launcher loop; not thread-safe.
#ifndef HEAPREC_RECORDER_LAUNCHER_COMPRESSION_GOVERNOR_H_
#define HEAPREC_RECORDER_LAUNCHER_COMPRESSION_GOVERNOR_H_

#include <cstdint>

namespace heaprec::recorder::launcher {

class CompressionGovernor {
 public:
  static constexpr uint64_t kWindowNs = 50 * 1000 * 1000;
  // Busy share of a window above which waits mean the launcher falls behind
  // (50 ms windows: churn 0.88-0.96, mt_handoff 0.95-1.0; Python's start
  // 0.93 and then 0.77, alloc_heavy's 0.91 then 0.72).
  static constexpr double kSaturated = 0.85;
  // Windows in a row that switch: saturated with waits (a start's burst
  // fills one), and calm (no waits, busy under kCalm).
  static constexpr int kToFast = 2;
  static constexpr int kToStrong = 4;
  static constexpr double kCalm = 0.45;

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
    saturated_ = waits_ > 0 && busy >= kSaturated ? saturated_ + 1 : 0;
    calm_ = waits_ == 0 && busy < kCalm ? calm_ + 1 : 0;
    if (!fast_ && saturated_ >= kToFast) {
      fast_ = true;
      calm_ = 0;
    } else if (fast_ && calm_ >= kToStrong) {
      fast_ = false;
      saturated_ = 0;
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
  int saturated_ = 0;  // windows in a row saturated with waits
  int calm_ = 0;       // windows in a row calm
  bool fast_ = false;
};

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_COMPRESSION_GOVERNOR_H_
