// RangeProfile: per call stack and per time bucket totals, from which any
// range of buckets can be analysed later without the events: what was
// allocated, what was temporary and what leaked from allocations made in the
// range, and who held what at the range's highest moment. heapreplay --html
// ships these to the page (analyzers/html/DATA.md, which defines every field)
// so that selecting a time range there is exact to the bucket.
//
// Buckets are spans of consecutive events of equal count, at most
// `max_buckets`; when they fill up, neighbours merge in pairs and spans
// double (as TimelineAnalyzer does). Merging is exact: sums add, and the
// "up to the bucket's highest moment" totals combine by which half held it.
// A marker starts a new bucket, and merging keeps that boundary while there
// are at most a quarter as many such buckets as `max_buckets`, so ranges
// between markers are exact.
// Cells exist only where a stack did something in a bucket.
// An Analyzer; call Finish once after the pass. Not thread-safe; memory
// proportional to cells (distinct (stack, bucket) pairs) and buckets.
#ifndef HEAPREC_ANALYZERS_RANGE_PROFILE_H_
#define HEAPREC_ANALYZERS_RANGE_PROFILE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "analyzers/analyzer.h"
#include "analyzers/live_heap.h"

namespace heaprec::analyzers {

struct RangeBucket {
  uint64_t start_ns = 0;     // the bucket's first event
  uint64_t end_ns = 0;       // its last event
  uint64_t live_end = 0;     // live bytes after its last event
  uint64_t max_live = 0;     // highest live bytes after any of its events
  uint64_t max_time_ns = 0;  // when max_live was first reached
  uint64_t first_block = 0;  // the first block id made in or after it
  uint64_t start_seq = 0;    // seq of its first event
  bool at_marker = false;    // a marker came right before its first event
  friend bool operator==(const RangeBucket&, const RangeBucket&) = default;
};

// One stack's totals in one bucket (DATA.md's "cells"): *_n blocks or calls,
// *_b bytes.
struct RangeCell {
  uint32_t stack = 0;  // StackNode id; 0 = no stack
  uint32_t bucket = 0;
  int64_t calls_n = 0, calls_b = 0;  // allocation calls made (as HotAnalyzer)
  int64_t net_n = 0, net_b = 0;      // live blocks made minus released
  int64_t peak_n = 0, peak_b = 0;    // the same, up to the bucket's max_live
  int64_t temp_n = 0, temp_b = 0;    // temporaries (counted at their free)
  int64_t leak_n = 0, leak_b = 0;    // made here, still live at the end
  bool IsZero() const;
  friend bool operator==(const RangeCell&, const RangeCell&) = default;
};

class RangeProfile : public Analyzer {
 public:
  // Past `cell_budget` cells while reading, buckets merge early and their
  // limit comes down (to 16 at least), so memory stays bounded.
  explicit RangeProfile(size_t max_buckets = 512, size_t cell_budget = size_t{4} << 20);
  void OnMarker(const format::Marker& m) override { marker_pending_ = true; }
  bool EventsInBatches() const override { return true; }
  void OnEvents(const format::EventSpan& events, const HeapChange* changes,
                const LiveHeap& heap) override;

  // After the pass: counts the blocks still live in `heap` (those `leaked`
  // accepts, when given: the leak kinds shown) as leaks of the bucket that
  // made them, drops cells that hold nothing, sorts the cells by (stack,
  // bucket), and merges buckets in pairs while there are more than
  // `max_cells` cells (and more than 16 buckets).
  using BlockFilter = std::function<bool(uint64_t id, const LiveBlock& block)>;
  void Finish(const LiveHeap& heap, const BlockFilter& leaked = nullptr, size_t max_cells = 400000);

  const std::vector<RangeBucket>& buckets() const { return buckets_; }
  const std::vector<RangeCell>& cells() const { return cells_; }
  // The bucket that made block `id` (block ids count up as blocks are made):
  // the last one whose first_block is at most id; 0 before any.
  uint32_t BucketOfBlock(uint64_t id) const;

  // Merges neighbouring buckets in pairs, cells with them, exactly; a bucket
  // that starts at a marker is not merged into the one before it (while
  // those are few). False if nothing could merge.
  bool MergePairs();

 private:
  void One(const format::Event& e, const HeapChange& c);
  RangeCell& CellOf(uint32_t stack);
  void Touch(uint32_t cell);
  void StartBucket(const format::Event& e);
  // Sorts cells by (stack, bucket) and adds up cells of the same pair
  // (only ever leak-only cells added by Finish, so peaks simply add).
  void Normalize();

  size_t max_buckets_;
  size_t cell_budget_;
  uint64_t span_ = 1;     // events per bucket
  uint64_t in_last_ = 0;  // events in the last bucket so far
  uint64_t last_made_ = 0;
  bool marker_pending_ = false;  // the next event starts a bucket
  std::vector<RangeBucket> buckets_;
  std::vector<RangeCell> cells_;
  std::vector<uint32_t> current_;    // stack -> index + 1 of its latest cell; 0 = none
  std::vector<uint32_t> touched_;    // cells changed since the bucket's latest max
  std::vector<uint8_t> is_touched_;  // per cell
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_RANGE_PROFILE_H_
