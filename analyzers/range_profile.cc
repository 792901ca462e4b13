// Per stack and bucket totals (range_profile.h).
#include "analyzers/range_profile.h"

#include <algorithm>
#include <unordered_map>

#include "analyzers/estimate.h"

namespace heaprec::analyzers {
namespace {

constexpr size_t kMinBuckets = 16;

bool ByStackThenBucket(const RangeCell& a, const RangeCell& b) {
  return a.stack != b.stack ? a.stack < b.stack : a.bucket < b.bucket;
}

void AddSums(const RangeCell& from, RangeCell* into) {
  into->calls_n += from.calls_n;
  into->calls_b += from.calls_b;
  into->net_n += from.net_n;
  into->net_b += from.net_b;
  into->temp_n += from.temp_n;
  into->temp_b += from.temp_b;
  into->leak_n += from.leak_n;
  into->leak_b += from.leak_b;
}

}  // namespace

bool RangeCell::IsZero() const {
  return calls_n == 0 && calls_b == 0 && net_n == 0 && net_b == 0 && peak_n == 0 && peak_b == 0 &&
         temp_n == 0 && temp_b == 0 && leak_n == 0 && leak_b == 0;
}

RangeProfile::RangeProfile(size_t max_buckets, size_t cell_budget)
    : max_buckets_(std::max(kMinBuckets, max_buckets & ~size_t{1})), cell_budget_(cell_budget) {}

RangeCell& RangeProfile::CellOf(uint32_t stack) {
  if (stack >= current_.size()) current_.resize(stack + 1 + stack / 2, 0);
  const uint32_t bucket = static_cast<uint32_t>(buckets_.size() - 1);
  uint32_t& index = current_[stack];
  if (index == 0 || cells_[index - 1].bucket != bucket) {
    RangeCell cell;
    cell.stack = stack;
    cell.bucket = bucket;
    cells_.push_back(cell);
    is_touched_.push_back(0);
    index = static_cast<uint32_t>(cells_.size());
  }
  return cells_[index - 1];
}

void RangeProfile::Touch(uint32_t cell) {
  if (is_touched_[cell]) return;
  is_touched_[cell] = 1;
  touched_.push_back(cell);
}

void RangeProfile::StartBucket(const format::Event& e) {
  for (uint32_t t : touched_) is_touched_[t] = 0;
  touched_.clear();
  // Too many cells: merge now, and allow no more buckets than there are now.
  if (cells_.size() > cell_budget_ && buckets_.size() > kMinBuckets) {
    max_buckets_ = std::max(kMinBuckets, buckets_.size() & ~size_t{1});
  }
  if (buckets_.size() >= max_buckets_) {
    // The buckets are full: pairs make room, spans double (a bucket cut short
    // by a marker holds fewer events).
    MergePairs();
    span_ *= 2;
  }
  RangeBucket b;
  b.start_ns = b.end_ns = b.max_time_ns = e.time_ns;
  b.first_block = last_made_ + 1;
  b.start_seq = e.seq;
  b.at_marker = marker_pending_;
  marker_pending_ = false;
  buckets_.push_back(b);
  in_last_ = 0;
}

__attribute__((always_inline)) inline void RangeProfile::One(const format::Event& e,
                                                             const HeapChange& c) {
  if (buckets_.empty() || in_last_ == span_ || marker_pending_) StartBucket(e);
  ++in_last_;
  RangeBucket& bucket = buckets_.back();
  bucket.end_ns = e.time_ns;
  if (c.released != 0) {
    RangeCell& x = CellOf(c.released_block.stack);
    x.net_n -= static_cast<int64_t>(c.released_est.count);
    x.net_b -= static_cast<int64_t>(c.released_est.bytes);
    Touch(static_cast<uint32_t>(&x - cells_.data()));
  }
  if (c.made != 0) {
    last_made_ = std::max(last_made_, c.made);
    RangeCell& x = CellOf(c.made_block.stack);
    x.net_n += static_cast<int64_t>(c.made_est.count);
    x.net_b += static_cast<int64_t>(c.made_est.bytes);
    Touch(static_cast<uint32_t>(&x - cells_.data()));
  }
  // Allocation calls and temporaries exactly as HotAnalyzer counts them.
  if (e.CountsAsAllocation()) {
    RangeCell& x = CellOf(e.stack);
    const Estimate est = EstimateOf(e.size, e.weight, e.block);
    x.calls_n += static_cast<int64_t>(est.count);
    x.calls_b += static_cast<int64_t>(est.bytes);
  }
  if (c.temporary) {
    RangeCell& x = CellOf(c.released_block.stack);
    x.temp_n += static_cast<int64_t>(c.released_est.count);
    x.temp_b += static_cast<int64_t>(c.released_est.bytes);
  }
  const uint64_t live = c.live_bytes;
  bucket.live_end = live;
  if (in_last_ == 1 || live > bucket.max_live) {
    bucket.max_live = live;
    bucket.max_time_ns = e.time_ns;
    for (uint32_t t : touched_) {
      cells_[t].peak_n = cells_[t].net_n;
      cells_[t].peak_b = cells_[t].net_b;
      is_touched_[t] = 0;
    }
    touched_.clear();
  }
}

void RangeProfile::OnEvents(const format::EventSpan& events, const HeapChange* changes,
                            const LiveHeap&) {
  format::ForEachEvent(
      events, [&](const format::Event& e, size_t i)
                  __attribute__((always_inline)) { One(e, changes[i]); });
}

bool RangeProfile::MergePairs() {
  const size_t n = buckets_.size();
  // Which new bucket each old one joins, and whether as the second half.
  size_t at_markers = 0;
  for (const RangeBucket& b : buckets_) at_markers += b.at_marker ? 1 : 0;
  const bool keep_markers = at_markers <= max_buckets_ / 4;
  std::vector<uint32_t> joins(n);
  std::vector<uint8_t> second(n, 0);
  std::vector<RangeBucket> merged;
  std::vector<uint8_t> first_half_wins;
  for (size_t i = 0; i < n; ++i) {
    RangeBucket m = buckets_[i];
    joins[i] = uint32_t(merged.size());
    first_half_wins.push_back(1);
    if (i + 1 < n && !(keep_markers && buckets_[i + 1].at_marker)) {
      const RangeBucket& next = buckets_[++i];
      joins[i] = joins[i - 1];
      second[i] = 1;
      m.end_ns = next.end_ns;
      m.live_end = next.live_end;
      if (next.max_live > m.max_live) {  // ties: the first moment stays
        m.max_live = next.max_live;
        m.max_time_ns = next.max_time_ns;
        first_half_wins.back() = 0;
      }
    }
    merged.push_back(m);
  }
  if (merged.size() == n) return false;
  buckets_ = std::move(merged);

  std::sort(cells_.begin(), cells_.end(), ByStackThenBucket);
  std::vector<RangeCell> out;
  out.reserve(cells_.size());
  for (size_t i = 0; i < cells_.size(); ++i) {
    RangeCell first, second_half;  // the halves; a missing half is all zero
    const RangeCell& x = cells_[i];
    if (!second[x.bucket]) {
      first = x;
      if (i + 1 < cells_.size() && cells_[i + 1].stack == x.stack &&
          joins[cells_[i + 1].bucket] == joins[x.bucket]) {
        second_half = cells_[++i];
      }
    } else {
      second_half = x;
    }
    RangeCell m = first;
    m.stack = x.stack;
    m.bucket = joins[x.bucket];
    AddSums(second_half, &m);
    // Up to the merged bucket's highest moment: the first half's own, or all
    // of the first half and the second's up to its own.
    const bool first_wins = first_half_wins[m.bucket];
    m.peak_n = first_wins ? first.peak_n : first.net_n + second_half.peak_n;
    m.peak_b = first_wins ? first.peak_b : first.net_b + second_half.peak_b;
    out.push_back(m);
  }
  cells_ = std::move(out);
  // The stream continues in a new bucket: no cell is current or touched.
  std::fill(current_.begin(), current_.end(), 0);
  for (size_t i = 0; i < cells_.size(); ++i) current_[cells_[i].stack] = uint32_t(i + 1);
  is_touched_.assign(cells_.size(), 0);
  touched_.clear();
  return true;
}

void RangeProfile::Normalize() {
  std::sort(cells_.begin(), cells_.end(), ByStackThenBucket);
  std::vector<RangeCell> out;
  out.reserve(cells_.size());
  for (const RangeCell& x : cells_) {
    if (!out.empty() && out.back().stack == x.stack && out.back().bucket == x.bucket) {
      AddSums(x, &out.back());
      out.back().peak_n += x.peak_n;
      out.back().peak_b += x.peak_b;
    } else {
      out.push_back(x);
    }
  }
  out.erase(std::remove_if(out.begin(), out.end(), [](const RangeCell& c) { return c.IsZero(); }),
            out.end());
  cells_ = std::move(out);
}

uint32_t RangeProfile::BucketOfBlock(uint64_t id) const {
  const auto it =
      std::upper_bound(buckets_.begin(), buckets_.end(), id,
                       [](uint64_t v, const RangeBucket& b) { return v < b.first_block; });
  return it == buckets_.begin() ? 0 : uint32_t(it - buckets_.begin() - 1);
}

void RangeProfile::Finish(const LiveHeap& heap, const BlockFilter& leaked, size_t max_cells) {
  // Leaks, summed per (stack, bucket) before they become cells.
  std::unordered_map<uint64_t, RangeCell> leaks;
  heap.blocks().ForEach([&](uint64_t id, const LiveBlock& block) {
    if (leaked && !leaked(id, block)) return;
    const uint32_t bucket = BucketOfBlock(id);
    RangeCell& cell = leaks[(uint64_t{block.stack} << 32) | bucket];
    cell.stack = block.stack;
    cell.bucket = bucket;
    const Estimate est = heap.EstimateOf(id, block);
    cell.leak_n += static_cast<int64_t>(est.count);
    cell.leak_b += static_cast<int64_t>(est.bytes);
  });
  for (const auto& [key, cell] : leaks) cells_.push_back(cell);
  Normalize();
  while (cells_.size() > max_cells && buckets_.size() > kMinBuckets && MergePairs()) {
  }
  current_.clear();
  is_touched_.clear();
  touched_.clear();
}

}  // namespace heaprec::analyzers
