// RangeProfile: for random event streams (mallocs, frees, reallocs moved and
// in place, over many stacks) whose buckets merged several times, every range
// of buckets answered from the cells (as analyzers/html/DATA.md tells the
// page to) equals the same question answered from the events themselves; over
// the whole trace it equals PeakAnalyzer, HotAnalyzer and LeakSites.
#include "analyzers/range_profile.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <vector>

#include "analyzers/analysis.h"
#include "analyzers/hot.h"
#include "analyzers/leaks.h"
#include "analyzers/peak.h"
#include "analyzers/summary.h"
#include "analyzers/test_events.h"

namespace heaprec::analyzers {
namespace {

using format::Api;
using format::Event;

// Every event as the analyzers saw it.
struct Seen {
  Event e;
  HeapChange c;
  uint64_t live = 0;
  bool temporary = false;  // a temporary's free (HotAnalyzer's rule)
};

class Recorder : public Analyzer {
 public:
  void OnEvent(const Event& e, const HeapChange& c, const LiveHeap& heap) override {
    Seen s{e, c, heap.live_bytes()};
    s.temporary = temporaries_.Step(c.released, c.released_block, c.made, c.made_block);
    seen.push_back(s);
  }
  std::vector<Seen> seen;

 private:
  TemporaryWatch temporaries_;
};

// Per stack: {count, bytes}.
using Totals = std::map<uint32_t, std::pair<int64_t, int64_t>>;

struct Views {
  Totals calls, temps, leaks, peak;
  uint64_t peak_bytes = 0, peak_time = 0;
};

void Add(Totals* t, uint32_t stack, int64_t n, int64_t b) {
  auto& v = (*t)[stack];
  v.first += n;
  v.second += b;
  if (v.first == 0 && v.second == 0) t->erase(stack);
}

// The page's arithmetic (DATA.md) over buckets [b0, b1].
Views FromCells(const RangeProfile& p, uint32_t b0, uint32_t b1) {
  Views v;
  uint32_t top = b0;
  for (uint32_t b = b0; b <= b1; ++b) {
    if (p.buckets()[b].max_live > p.buckets()[top].max_live) top = b;
  }
  v.peak_bytes = p.buckets()[top].max_live;
  v.peak_time = p.buckets()[top].max_time_ns;
  for (const RangeCell& c : p.cells()) {
    if (c.bucket < top) Add(&v.peak, c.stack, c.net_n, c.net_b);
    if (c.bucket == top) Add(&v.peak, c.stack, c.peak_n, c.peak_b);
    if (c.bucket < b0 || c.bucket > b1) continue;
    Add(&v.calls, c.stack, c.calls_n, c.calls_b);
    Add(&v.temps, c.stack, c.temp_n, c.temp_b);
    Add(&v.leaks, c.stack, c.leak_n, c.leak_b);
  }
  return v;
}

// The same from the events whose times fall in [from_ns, to_ns].
Views FromEvents(const std::vector<Seen>& seen, uint64_t from_ns, uint64_t to_ns) {
  std::set<uint64_t> live_at_end;
  for (const Seen& s : seen) {
    if (s.c.released != 0) live_at_end.erase(s.c.released);
    if (s.c.made != 0) live_at_end.insert(s.c.made);
  }
  Views v;
  size_t top = seen.size();
  for (size_t i = 0; i < seen.size(); ++i) {
    const Seen& s = seen[i];
    if (s.e.time_ns < from_ns || s.e.time_ns > to_ns) continue;
    if (top == seen.size() || s.live > seen[top].live) top = i;
    if (s.e.CountsAsAllocation()) Add(&v.calls, s.e.stack, 1, int64_t(s.e.size));
    if (s.temporary) Add(&v.temps, s.c.released_block.stack, 1, int64_t(s.c.released_block.size));
    if (s.c.made != 0 && live_at_end.count(s.c.made)) {
      Add(&v.leaks, s.c.made_block.stack, 1, int64_t(s.c.made_block.size));
    }
  }
  if (top == seen.size()) return v;
  v.peak_bytes = seen[top].live;
  v.peak_time = seen[top].e.time_ns;
  for (size_t i = 0; i <= top; ++i) {
    const HeapChange& c = seen[i].c;
    if (c.released != 0) Add(&v.peak, c.released_block.stack, -1, -int64_t(c.released_block.size));
    if (c.made != 0) Add(&v.peak, c.made_block.stack, 1, int64_t(c.made_block.size));
  }
  return v;
}

Totals FromSites(const std::vector<Site>& sites) {
  Totals t;
  for (const Site& s : sites) Add(&t, s.stack, int64_t(s.count), int64_t(s.bytes));
  return t;
}

struct Pass {
  Analysis analysis;
  PeakAnalyzer peak;
  HotAnalyzer hot;
  RangeProfile profile;
  Recorder recorder;
  explicit Pass(size_t max_buckets = 16, size_t cell_budget = size_t{4} << 20)
      : profile(max_buckets, cell_budget) {
    for (Analyzer* a : std::initializer_list<Analyzer*>{&peak, &hot, &profile, &recorder}) {
      analysis.Add(a);
    }
  }
};

// A random program: allocations over `stacks` call stacks, frees and
// reallocs (moved, in place, to zero) of random live blocks; a marker before
// about one event in `marker_every` (never, with 0). Returns the markers' seqs.
std::vector<uint64_t> Feed(Pass* run, uint32_t seed, int events, uint32_t stacks,
                           int marker_every = 0) {
  std::mt19937 rng(seed);
  EventFeeder f(&run->analysis);
  std::vector<uint64_t> markers;
  std::vector<uint64_t> live;
  uint64_t next_address = 0x1000;
  for (int i = 0; i < events; ++i) {
    if (marker_every != 0 && rng() % marker_every == 0) {
      f.Marker("m" + std::to_string(i));
      markers.push_back(uint64_t(i) + 1);  // the seq of the next event
    }
    const uint32_t stack = 1 + rng() % stacks;
    const uint64_t size = 1 + rng() % 4000;
    const uint32_t what = rng() % 10;
    if (live.empty() || what < 5) {
      const uint64_t a = next_address += 0x10000;
      f.Event({.api = Api::kMalloc, .address = a, .size = size, .stack = stack});
      live.push_back(a);
      continue;
    }
    const size_t k = rng() % live.size();
    const uint64_t old = live[k];
    if (what < 8) {
      f.Event({.api = Api::kFree, .address = old, .stack = stack});
      live.erase(live.begin() + long(k));
    } else if (what == 8) {  // moved
      const uint64_t a = next_address += 0x10000;
      f.Event(
          {.api = Api::kRealloc, .address = a, .size = size, .old_address = old, .stack = stack});
      live[k] = a;
    } else {  // resized in place
      f.Event(
          {.api = Api::kRealloc, .address = old, .size = size, .old_address = old, .stack = stack});
    }
  }
  return markers;
}

void ExpectSame(const Views& cells, const Views& events, const std::string& where) {
  EXPECT_EQ(cells.calls, events.calls) << where;
  EXPECT_EQ(cells.temps, events.temps) << where;
  EXPECT_EQ(cells.leaks, events.leaks) << where;
  EXPECT_EQ(cells.peak, events.peak) << where;
  EXPECT_EQ(cells.peak_bytes, events.peak_bytes) << where;
  EXPECT_EQ(cells.peak_time, events.peak_time) << where;
}

void CheckEveryRange(const Pass& run) {
  const std::vector<RangeBucket>& b = run.profile.buckets();
  for (uint32_t b0 = 0; b0 < b.size(); ++b0) {
    for (uint32_t b1 = b0; b1 < b.size(); ++b1) {
      ExpectSame(FromCells(run.profile, b0, b1),
                 FromEvents(run.recorder.seen, b[b0].start_ns, b[b1].end_ns),
                 "buckets " + std::to_string(b0) + ".." + std::to_string(b1));
    }
  }
}

TEST(RangeProfileTest, EveryRangeOfBucketsMatchesTheEvents) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    Pass run;
    Feed(&run, seed, 3000, 40);  // 3000 events in at most 16 buckets: 5 merges
    run.profile.Finish(run.analysis.heap());
    ASSERT_GT(run.profile.buckets().size(), 8u);
    ASSERT_LE(run.profile.buckets().size(), 16u);
    CheckEveryRange(run);
  }
}

TEST(RangeProfileTest, TheWholeTraceIsWhatTheAnalyzersSay) {
  Pass run;
  Feed(&run, 7, 5000, 60);
  run.profile.Finish(run.analysis.heap());
  const Views all = FromCells(run.profile, 0, uint32_t(run.profile.buckets().size() - 1));
  EXPECT_EQ(all.peak, FromSites(run.peak.Sites()));
  EXPECT_EQ(all.peak_bytes, run.peak.peak_bytes());
  EXPECT_EQ(all.peak_time, run.peak.peak_time_ns());
  EXPECT_EQ(all.calls, FromSites(run.hot.HotSites()));
  EXPECT_EQ(all.temps, FromSites(run.hot.TemporarySites()));
  EXPECT_EQ(all.leaks, FromSites(LeakSites(run.analysis.heap())));
  EXPECT_FALSE(all.temps.empty());
}

TEST(RangeProfileTest, TooManyCellsMergeBucketsAfterThePassStillExactly) {
  Pass run(64);
  Feed(&run, 11, 4000, 200);
  run.profile.Finish(run.analysis.heap(), nullptr, /*max_cells=*/3000);
  EXPECT_LE(run.profile.cells().size(), 3000u);
  EXPECT_LT(run.profile.buckets().size(), 64u);
  EXPECT_GE(run.profile.buckets().size(), 16u);
  CheckEveryRange(run);
  Pass floor(64);
  Feed(&floor, 11, 4000, 200);
  floor.profile.Finish(floor.analysis.heap(), nullptr, /*max_cells=*/100);
  EXPECT_GT(floor.profile.cells().size(), 100u);  // 16 buckets is the floor
  EXPECT_EQ(floor.profile.buckets().size(), 16u);
}

// Whether some bucket starts exactly at each marker.
size_t MarkersAtBoundaries(const RangeProfile& p, const std::vector<uint64_t>& markers) {
  size_t at = 0;
  for (uint64_t seq : markers) {
    for (const RangeBucket& b : p.buckets()) at += b.start_seq == seq && b.at_marker ? 1 : 0;
  }
  return at;
}

TEST(RangeProfileTest, MarkersStayBucketBoundariesThroughMerges) {
  for (uint32_t seed : {4u, 5u}) {
    Pass run(64);
    const std::vector<uint64_t> markers = Feed(&run, seed, 6000, 50, /*marker_every=*/600);
    run.profile.Finish(run.analysis.heap());
    ASSERT_GE(markers.size(), 5u);
    ASSERT_LE(markers.size(), 16u);  // a quarter of 64: all kept
    EXPECT_LE(run.profile.buckets().size(), 64u);
    EXPECT_EQ(MarkersAtBoundaries(run.profile, markers), markers.size());
    CheckEveryRange(run);
  }
}

TEST(RangeProfileTest, ManyMarkersStillBoundTheBuckets) {
  Pass run(64);
  const std::vector<uint64_t> markers = Feed(&run, 6, 6000, 50, /*marker_every=*/40);
  run.profile.Finish(run.analysis.heap());
  ASSERT_GT(markers.size(), 64u);
  EXPECT_LE(run.profile.buckets().size(), 64u);
  CheckEveryRange(run);
}

TEST(RangeProfileTest, TooManyCellsWhileReadingMergeEarlyStillExactly) {
  Pass roomy(64), crowded(64, /*cell_budget=*/1500);
  Feed(&roomy, 12, 6000, 200);
  Feed(&crowded, 12, 6000, 200);
  roomy.profile.Finish(roomy.analysis.heap());
  crowded.profile.Finish(crowded.analysis.heap());
  EXPECT_GT(roomy.profile.cells().size(), 3000u);
  // Each merge while crowded lowers the limit to the buckets there were.
  EXPECT_LT(crowded.profile.buckets().size(), roomy.profile.buckets().size() / 2);
  EXPECT_GT(crowded.profile.buckets().size(), 8u);  // a limit of 16 leaves 9-16
  CheckEveryRange(crowded);
}

TEST(RangeProfileTest, BucketsOfAKnownProgram) {
  Pass run;
  EventFeeder f(&run.analysis);
  // One event per bucket while there are fewer than 16 events.
  f.Event({.api = Api::kMalloc, .address = 0x10, .size = 100, .stack = 1});  // 1 ms: 100
  f.Event({.api = Api::kMalloc, .address = 0x20, .size = 50, .stack = 2});   // 2 ms: 150
  f.Event({.api = Api::kFree, .address = 0x10, .stack = 3});                 // 3 ms: 50
  f.Event({.api = Api::kMalloc, .address = 0x30, .size = 8, .stack = 4});    // 4 ms: 58
  f.Event({.api = Api::kFree, .address = 0x30, .stack = 4});                 // 5 ms: 50, temporary
  run.profile.Finish(run.analysis.heap());
  const std::vector<RangeBucket>& b = run.profile.buckets();
  ASSERT_EQ(b.size(), 5u);
  EXPECT_EQ(b[1], (RangeBucket{2000000, 2000000, 150, 150, 2000000, 2, 2, false}));
  EXPECT_EQ(b[2].live_end, 50u);
  EXPECT_EQ(b[4].first_block, 4u);
  // Stack 2's block (made in bucket 1) is the one leak; stack 4's temporary.
  std::vector<RangeCell> leaks, temps;
  for (const RangeCell& c : run.profile.cells()) {
    if (c.leak_n) leaks.push_back(c);
    if (c.temp_n) temps.push_back(c);
  }
  ASSERT_EQ(leaks.size(), 1u);
  EXPECT_EQ(leaks[0].stack, 2u);
  EXPECT_EQ(leaks[0].bucket, 1u);
  EXPECT_EQ(leaks[0].leak_b, 50);
  ASSERT_EQ(temps.size(), 1u);
  EXPECT_EQ(temps[0].stack, 4u);
  EXPECT_EQ(temps[0].bucket, 4u);
}

}  // namespace
}  // namespace heaprec::analyzers
