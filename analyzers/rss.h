// RssTrack: the process's resident memory over the trace (format 3.4's RSS
// samples, format::RssSample) beside the live heap: the samples (at most
// max_points kept: when full, neighbours merge in pairs and the higher RSS
// of each pair stays, so no peak is lost), the peak RSS, and the RSS at the
// heap's peak with its gap to the live heap bytes (the allocator's overhead
// and fragmentation, plus everything else resident: code, stacks, other
// mappings).
//
// The RSS at the heap's peak is the highest sample taken while the live heap
// stayed at its peak (from the event that made it to the next event that
// changed the heap), the sample just before it and the first sample after it
// if none was taken meanwhile: memory just allocated is resident only once
// the program touches it, after the allocation returned. Unknown (nullopt)
// when the trace holds no sample around it.
//
// Owned by Analysis (analysis.h), which feeds it every event and sample;
// not thread-safe; memory O(max_points).
#ifndef HEAPREC_ANALYZERS_RSS_H_
#define HEAPREC_ANALYZERS_RSS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "format/records.h"

namespace heaprec::analyzers {

struct RssPoint {
  format::RssSample sample;
  uint64_t live_bytes = 0;  // the live heap when it was taken
};

class RssTrack {
 public:
  explicit RssTrack(size_t max_points = 1000);

  // After each event: the live heap bytes it left.
  void OnHeap(uint64_t live_bytes, const format::Event& e) {
    if (live_bytes <= heap_peak_bytes_) {
      in_peak_ &= live_bytes == heap_peak_bytes_;
      return;
    }
    heap_peak_bytes_ = live_bytes;
    at_peak_ = last_total_;  // the sample before (nullopt if none yet)
    in_peak_ = after_peak_wanted_ = true;
  }
  void OnSample(const format::RssSample& s, uint64_t live_bytes);

  bool has_samples() const { return count_ != 0; }
  uint64_t samples() const { return count_; }
  const std::vector<RssPoint>& points() const { return points_; }
  uint64_t peak_rss_bytes() const { return peak_rss_; }
  uint64_t peak_rss_time_ns() const { return peak_rss_time_ns_; }
  // Mean time between samples (0 with fewer than two).
  uint64_t mean_interval_ns() const;
  std::optional<uint64_t> rss_at_heap_peak() const { return at_peak_; }
  uint64_t heap_peak_bytes() const { return heap_peak_bytes_; }
  // RSS at the heap's peak minus the live heap then (negative only in a
  // sampled trace, whose heap is an estimate).
  std::optional<int64_t> gap_at_heap_peak() const;

 private:
  friend class AnalysisState;  // analysis_state.h
  size_t max_points_;
  std::vector<RssPoint> points_;
  uint64_t count_ = 0;
  uint64_t first_time_ns_ = 0, last_time_ns_ = 0;
  uint64_t peak_rss_ = 0, peak_rss_time_ns_ = 0;
  std::optional<uint64_t> last_total_;
  uint64_t heap_peak_bytes_ = 0;
  std::optional<uint64_t> at_peak_;
  bool after_peak_wanted_ = false;  // no sample since the peak was made
  bool in_peak_ = false;            // the heap is still at its peak
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_RSS_H_
