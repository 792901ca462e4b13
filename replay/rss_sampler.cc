// RSS against progress, sampled during a replay (rss_sampler.h).
#include "replay/rss_sampler.h"

#include <time.h>

#include "replay/proc_stats.h"

namespace heaprec::replay {

void RssSampler::Start(const Replayer* replayer, uint64_t baseline_rss) {
  replayer_ = replayer;
  baseline_ = baseline_rss;
  thread_ = std::thread(&RssSampler::Loop, this);
}

void RssSampler::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  // The end point, taken here: a replay shorter than the sampler's first
  // wake-up (a loaded machine) still draws a curve.
  Sample();
}

void RssSampler::Sample() {
  const uint64_t ops = replayer_->OpsRun();
  const uint64_t rss = StatmRssBytes();
  const Point p{ops, rss > baseline_ ? rss - baseline_ : 0};
  if (count_ > 0 && points_[count_ - 1].ops == ops) {  // no progress: keep the higher
    if (p.bytes > points_[count_ - 1].bytes) points_[count_ - 1] = p;
    return;
  }
  if (count_ == kPoints) {
    for (size_t i = 0; i < kPoints / 2; ++i) {
      const Point& a = points_[2 * i];
      const Point& b = points_[2 * i + 1];
      points_[i] = a.bytes >= b.bytes ? a : b;
    }
    count_ = kPoints / 2;
    interval_ns_ = interval_ns_ < 500'000'000 ? interval_ns_ * 2 : interval_ns_;
  }
  points_[count_++] = p;
}

void RssSampler::Loop() {
  while (!stop_.load(std::memory_order_relaxed)) {
    Sample();
    const timespec interval{0, static_cast<long>(interval_ns_)};
    nanosleep(&interval, nullptr);
  }
}

std::string RssSampler::Curve() const {
  std::string out;
  for (size_t i = 0; i < count_; ++i) {
    if (i > 0) out += ',';
    out += std::to_string(points_[i].ops) + ":" + std::to_string(points_[i].bytes);
  }
  return out.empty() ? "-" : out;
}

}  // namespace heaprec::replay
