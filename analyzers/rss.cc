// RSS beside the live heap (rss.h).
#include "analyzers/rss.h"

#include <algorithm>

namespace heaprec::analyzers {

RssTrack::RssTrack(size_t max_points) : max_points_(std::max<size_t>(2, max_points & ~size_t{1})) {}

void RssTrack::OnSample(const format::RssSample& s, uint64_t live_bytes) {
  const uint64_t total = s.total_bytes();
  if (count_ == 0) first_time_ns_ = s.time_ns;
  last_time_ns_ = s.time_ns;
  ++count_;
  if (total > peak_rss_) {
    peak_rss_ = total;
    peak_rss_time_ns_ = s.time_ns;
  }
  if (after_peak_wanted_ || in_peak_) {
    at_peak_ = std::max(at_peak_.value_or(0), total);
    after_peak_wanted_ = false;
  }
  last_total_ = total;
  if (points_.size() == max_points_) {
    std::vector<RssPoint> merged;
    merged.reserve(max_points_);
    for (size_t i = 0; i + 1 < points_.size(); i += 2) {
      const RssPoint& a = points_[i];
      const RssPoint& b = points_[i + 1];
      merged.push_back(b.sample.total_bytes() > a.sample.total_bytes() ? b : a);
    }
    points_ = std::move(merged);
  }
  points_.push_back({s, live_bytes});
}

uint64_t RssTrack::mean_interval_ns() const {
  return count_ < 2 ? 0 : (last_time_ns_ - first_time_ns_) / (count_ - 1);
}

std::optional<int64_t> RssTrack::gap_at_heap_peak() const {
  if (!at_peak_) return std::nullopt;
  return static_cast<int64_t>(*at_peak_) - static_cast<int64_t>(heap_peak_bytes_);
}

}  // namespace heaprec::analyzers
