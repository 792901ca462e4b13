// RssSampler: for --plot, a thread that samples the worker's RSS (above a
// baseline) against the replay's progress (ops run, all threads) about
// every millisecond, into a fixed array: when it fills, every pair of
// points merges into the higher one and the interval doubles, so memory is
// bounded and the peaks stay. Created before the clock starts; costs one
// short read of /proc/self/statm per millisecond on a core the replay may
// share. Stop adds a last point, so a curve is never empty. Start/Stop/Curve
// from the worker's main thread.
#ifndef HEAPREC_REPLAY_RSS_SAMPLER_H_
#define HEAPREC_REPLAY_RSS_SAMPLER_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include "replay/replayer.h"

namespace heaprec::replay {

class RssSampler {
 public:
  void Start(const Replayer* replayer, uint64_t baseline_rss);
  void Stop();
  // "ops:bytes,ops:bytes,..." (bench_sample.h's curve field).
  std::string Curve() const;

 private:
  struct Point {
    uint64_t ops, bytes;
  };
  static constexpr size_t kPoints = 1024;

  void Loop();
  void Sample();  // one point (the sampler thread, then Stop after the join)

  const Replayer* replayer_ = nullptr;
  uint64_t baseline_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::array<Point, kPoints> points_{};
  size_t count_ = 0;
  uint64_t interval_ns_ = 1'000'000;  // doubles each time the points merge
};

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_RSS_SAMPLER_H_
