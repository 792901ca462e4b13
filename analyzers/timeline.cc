// Live bytes over time in bounded points (timeline.h).
#include "analyzers/timeline.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace heaprec::analyzers {

TimelineAnalyzer::TimelineAnalyzer(size_t max_points)
    : max_points_(std::max<size_t>(2, max_points & ~size_t{1})) {}

void TimelineAnalyzer::Merge() {
  std::vector<TimelinePoint> merged;
  merged.reserve(max_points_);
  for (size_t i = 0; i + 1 < points_.size(); i += 2) {
    TimelinePoint p = points_[i];
    p.live_bytes = points_[i + 1].live_bytes;
    p.max_live_bytes = std::max(p.max_live_bytes, points_[i + 1].max_live_bytes);
    p.rss_bytes = points_[i + 1].rss_bytes;
    p.max_rss_bytes = std::max(p.max_rss_bytes, points_[i + 1].max_rss_bytes);
    merged.push_back(p);
  }
  points_ = std::move(merged);
  span_ *= 2;
}

__attribute__((always_inline)) inline void TimelineAnalyzer::One(const format::Event& e,
                                                                 const HeapChange& c) {
  const uint64_t live = c.live_bytes;
  if (points_.empty() || in_last_ == span_) {
    if (points_.size() == max_points_) Merge();  // every point is full: pairs make room
    points_.push_back({e.time_ns, e.seq, live, live, rss_, rss_});
    in_last_ = 1;
    return;
  }
  TimelinePoint& p = points_.back();
  p.live_bytes = live;
  p.max_live_bytes = std::max(p.max_live_bytes, live);
  ++in_last_;
}

void TimelineAnalyzer::OnEvents(const format::EventSpan& events, const HeapChange* changes,
                                const LiveHeap&) {
  format::ForEachEvent(
      events, [&](const format::Event& e, size_t i)
                  __attribute__((always_inline)) { One(e, changes[i]); });
}

void TimelineAnalyzer::OnRssSample(const format::RssSample& s, const LiveHeap&) {
  has_rss_ = true;
  rss_ = s.total_bytes();
  if (points_.empty()) return;
  points_.back().rss_bytes = rss_;
  points_.back().max_rss_bytes = std::max(points_.back().max_rss_bytes, rss_);
}

std::string TimelineCsv(const std::vector<TimelinePoint>& points, bool rss) {
  std::string out = "time_s,seq,live_bytes,max_live_bytes";
  out += rss ? ",rss_bytes,max_rss_bytes\n" : "\n";
  char line[160];
  for (const TimelinePoint& p : points) {
    std::snprintf(line, sizeof(line), "%.6f,%" PRIu64 ",%" PRIu64 ",%" PRIu64, p.time_ns / 1e9,
                  p.seq, p.live_bytes, p.max_live_bytes);
    out += line;
    if (rss && p.max_rss_bytes == 0) {
      out += ",,";  // before the first sample
    } else if (rss) {
      std::snprintf(line, sizeof(line), ",%" PRIu64 ",%" PRIu64, p.rss_bytes, p.max_rss_bytes);
      out += line;
    }
    out += "\n";
  }
  return out;
}

}  // namespace heaprec::analyzers
