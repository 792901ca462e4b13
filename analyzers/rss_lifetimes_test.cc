// RssTrack (rss.h) and LifetimeAnalyzer (lifetimes.h) over hand-made events:
// the RSS at the heap's peak and its gap, points merged without losing the
// peak; lifetimes in blocks made in between, buckets and quantiles, and
// frees by another thread.
#include <gtest/gtest.h>

#include "analyzers/analysis.h"
#include "analyzers/lifetimes.h"
#include "analyzers/test_events.h"

namespace heaprec::analyzers {
namespace {

using format::Api;

constexpr uint64_t kMiB = uint64_t{1} << 20;

TEST(RssTrackTest, GapAtTheHeapsPeakTakesTheSamplesWhileItLasted) {
  Analysis a;
  EventFeeder f(&a);
  f.Rss(1 * kMiB);
  f.Event({.api = Api::kMalloc, .address = 0x1000, .size = 10 * kMiB});  // the peak
  f.Rss(5 * kMiB);                                                       // being touched
  f.Rss(12 * kMiB);  // touched: still at the peak
  f.Event({.api = Api::kFree, .address = 0x1000});
  f.Rss(30 * kMiB);  // after the peak: not its
  const RssTrack& r = a.rss();
  EXPECT_EQ(r.samples(), 4u);
  EXPECT_EQ(r.peak_rss_bytes(), 30 * kMiB);
  EXPECT_EQ(r.heap_peak_bytes(), 10 * kMiB);
  ASSERT_TRUE(r.rss_at_heap_peak().has_value());
  EXPECT_EQ(*r.rss_at_heap_peak(), 12 * kMiB);
  EXPECT_EQ(*r.gap_at_heap_peak(), static_cast<int64_t>(2 * kMiB));
}

TEST(RssTrackTest, WithoutASampleDuringThePeakTheNextOneCounts) {
  Analysis a;
  EventFeeder f(&a);
  f.Event({.api = Api::kMalloc, .address = 0x1000, .size = 100});
  f.Event({.api = Api::kFree, .address = 0x1000});
  EXPECT_FALSE(a.rss().rss_at_heap_peak().has_value());
  f.Rss(4096);
  EXPECT_EQ(*a.rss().rss_at_heap_peak(), 4096u);
  EXPECT_EQ(*a.rss().gap_at_heap_peak(), 4096 - 100);
}

TEST(RssTrackTest, MergedPointsKeepThePeak) {
  RssTrack r(4);
  for (uint64_t i = 0; i < 9; ++i) {
    r.OnSample({i + 1, i * 10, i == 5 ? 99 * kMiB : kMiB, 0, 0}, 0);
  }
  EXPECT_EQ(r.samples(), 9u);
  EXPECT_LE(r.points().size(), 4u);
  bool peak_kept = false;
  for (const RssPoint& p : r.points()) peak_kept |= p.sample.anon_bytes == 99 * kMiB;
  EXPECT_TRUE(peak_kept);
  EXPECT_EQ(r.mean_interval_ns(), 10u);
}

TEST(LifetimesTest, BlocksMadeInBetweenAndOtherThreads) {
  Analysis a;
  LifetimeAnalyzer l;
  a.Add(&l);
  EventFeeder f(&a);
  // Stack 1: 3 blocks by thread 1; block A freed after 2 others by thread 2.
  f.Event({.thread = 1, .api = Api::kMalloc, .address = 0xA0, .size = 8, .stack = 1});
  f.Event({.thread = 1, .api = Api::kMalloc, .address = 0xB0, .size = 8, .stack = 2});
  f.Event({.thread = 1, .api = Api::kMalloc, .address = 0xC0, .size = 8, .stack = 2});
  f.Event({.thread = 2, .api = Api::kFree, .address = 0xA0});
  f.Event({.thread = 1, .api = Api::kFree, .address = 0xC0});  // 0 in between
  const SiteLifetimes* one = l.Of(1);
  const SiteLifetimes* two = l.Of(2);
  ASSERT_NE(one, nullptr);
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(one->allocations_between.total, 1u);
  EXPECT_EQ(one->allocations_between.counts[Log2Histogram::BucketOf(2)], 1u);
  EXPECT_EQ(one->freed_by_other_thread, 1u);
  EXPECT_EQ(one->time_ns.sum, 3 * 1000000);  // event 4 (4 ms) - event 1 (1 ms)
  EXPECT_EQ(two->allocations_between.total, 1u);
  EXPECT_EQ(two->allocations_between.Quantile(0.5), 0u);
  EXPECT_EQ(two->live_at_end, 1u);
  EXPECT_EQ(two->freed_by_other_thread, 0u);
  EXPECT_EQ(l.all().time_ns.total, 2u);
  EXPECT_EQ(l.all().live_at_end, 1u);
}

TEST(LifetimesTest, Log2QuantilesAreTheTopOfTheirBucket) {
  Log2Histogram h;
  for (uint64_t v : {0, 1, 2, 3, 5, 100}) h.Add(v);
  EXPECT_EQ(h.Quantile(1.0 / 6), 0u);
  EXPECT_EQ(h.Quantile(0.5), 3u);  // 3rd of 6: 2, in 2..3
  EXPECT_EQ(h.Quantile(0.99), 127u);
  EXPECT_EQ(h.Max(), 127u);
  EXPECT_DOUBLE_EQ(h.Mean(), 111.0 / 6);
}

}  // namespace
}  // namespace heaprec::analyzers
