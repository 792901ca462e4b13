// TimelineAnalyzer: live heap bytes over the trace (heapreplay --timeline),
// in at most `max_points` points whatever the trace's length.
//
// Events are grouped into spans of equal event counts; each point is one span:
// its first event's time and seq, the live bytes after its last event and the
// highest live bytes within it (so no peak is lost between points). When the
// points fill up, neighbours merge in pairs and spans double.
// An Analyzer; not thread-safe; memory O(max_points).
#ifndef HEAPREC_ANALYZERS_TIMELINE_H_
#define HEAPREC_ANALYZERS_TIMELINE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analyzers/analyzer.h"

namespace heaprec::analyzers {

struct TimelinePoint {
  uint64_t time_ns = 0;  // of the span's first event
  uint64_t seq = 0;      // of the span's first event
  uint64_t live_bytes = 0;
  uint64_t max_live_bytes = 0;
  // RSS (format 3.4): the last sample at or before the span's end, and the
  // highest taken within it (or the last before it); 0 before any sample.
  uint64_t rss_bytes = 0;
  uint64_t max_rss_bytes = 0;
  friend bool operator==(const TimelinePoint&, const TimelinePoint&) = default;
};

class TimelineAnalyzer : public Analyzer {
 public:
  explicit TimelineAnalyzer(size_t max_points = 1000);
  bool EventsInBatches() const override { return true; }
  void OnEvents(const format::EventSpan& events, const HeapChange* changes,
                const LiveHeap& heap) override;
  void OnRssSample(const format::RssSample& s, const LiveHeap& heap) override;

  const std::vector<TimelinePoint>& points() const { return points_; }
  bool has_rss() const { return has_rss_; }
  uint64_t events_per_point() const { return span_; }

 private:
  void One(const format::Event& e, const HeapChange& c);
  void Merge();

  size_t max_points_;
  uint64_t span_ = 1;     // events per point
  uint64_t in_last_ = 0;  // events in the last point so far
  std::vector<TimelinePoint> points_;
  bool has_rss_ = false;
  uint64_t rss_ = 0;  // the last sample's total
};

// "time_s,seq,live_bytes,max_live_bytes" and one line per point; with rss
// also ",rss_bytes,max_rss_bytes" (a trace with RSS samples, format 3.4;
// empty before the first sample).
std::string TimelineCsv(const std::vector<TimelinePoint>& points, bool rss = false);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_TIMELINE_H_
