// Leaks over event sequences whose answer is known exactly, including every
// form of realloc the recorder writes.
#include "analyzers/leaks.h"

#include <gtest/gtest.h>

#include <vector>

#include "analyzers/analysis.h"
#include "analyzers/mismatches.h"
#include "analyzers/summary.h"
#include "analyzers/test_events.h"

namespace heaprec::analyzers {
namespace {

using format::Api;
using format::Event;

struct Pass {
  Pass() { analysis.Add(&summary); }
  Analysis analysis;
  SummaryAnalyzer summary;
  const LiveHeap& heap() const { return analysis.heap(); }
};

std::vector<Site> Feed(const std::vector<Event>& events, Pass* p) {
  EventFeeder feeder(&p->analysis);
  for (const Event& e : events) feeder.Event(e);
  return LeakSites(p->heap());
}

TEST(LeaksTest, GroupsLiveBlocksByStackLargestFirst) {
  Pass p;
  const SummaryAnalyzer& a = p.summary;
  const auto sites = Feed(
      {
          {.api = Api::kMalloc, .address = 0x10, .size = 64, .stack = 1},
          {.api = Api::kMalloc, .address = 0x20, .size = 64, .stack = 1},
          {.api = Api::kNew, .address = 0x30, .size = 1000, .stack = 2},
          {.api = Api::kCalloc, .address = 0x40, .size = 8, .stack = 3},
          {.api = Api::kFree, .address = 0x40},
          {.api = Api::kMalloc, .address = 0, .size = 1 << 30, .stack = 4},  // failed
      },
      &p);
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_EQ(sites[0].stack, 2u);
  EXPECT_EQ(sites[0].bytes, 1000u);
  EXPECT_EQ(sites[0].count, 1u);
  EXPECT_EQ(sites[1].stack, 1u);
  EXPECT_EQ(sites[1].bytes, 128u);
  EXPECT_EQ(sites[1].count, 2u);
  EXPECT_EQ(p.heap().live_bytes(), 1128u);
  EXPECT_EQ(p.heap().blocks().size(), 3u);
  EXPECT_EQ(a.allocations(), 4u);
  EXPECT_EQ(a.frees(), 1u);
  EXPECT_EQ(a.bytes_allocated(), 1136u);
  EXPECT_EQ(a.peak_bytes(), 1136u);
  EXPECT_EQ(a.peak_seq(), 4u);
  EXPECT_EQ(a.temporaries(), 1u);  // the calloc freed right away
}

TEST(LeaksTest, ReallocForms) {
  Pass p;
  const SummaryAnalyzer& a = p.summary;
  const auto sites = Feed(
      {
          // realloc(NULL, 10) acts as malloc.
          {.api = Api::kRealloc, .address = 0x100, .size = 10, .old_address = 0, .stack = 5},
          // in place growth to 20.
          {.api = Api::kRealloc, .address = 0x100, .size = 20, .old_address = 0x100, .stack = 6},
          // moved: old freed, then new allocated (two events).
          {.api = Api::kRealloc, .address = 0, .size = 0, .old_address = 0x100, .stack = 7},
          {.api = Api::kRealloc, .address = 0x200, .size = 40, .old_address = 0, .stack = 7},
          // failed: the old block stays as it was.
          {.api = Api::kRealloc, .address = 0, .size = 1 << 30, .old_address = 0x200, .stack = 8},
          // realloc(p, 0) frees.
          {.api = Api::kMalloc, .address = 0x300, .size = 5, .stack = 9},
          {.api = Api::kRealloc, .address = 0, .size = 0, .old_address = 0x300, .stack = 9},
      },
      &p);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].stack, 7u);
  EXPECT_EQ(sites[0].bytes, 40u);
  EXPECT_EQ(p.heap().blocks().size(), 1u);
  EXPECT_EQ(a.peak_bytes(), 45u);  // 40 at 0x200 + 5 at 0x300
}

// A recording that does not cover the whole life (live_heap.h): frees of
// blocks never seen made are "freed, allocated before recording", not
// mismatches; before a trace's first switch they still are mismatches.
TEST(LeaksTest, FreesOfBlocksMadeBeforeRecording) {
  Pass p;
  MismatchAnalyzer mismatches;
  p.analysis.Add(&mismatches);
  format::ProcessInfo info;
  info.from_start = false;
  p.analysis.OnProcess(info);
  EXPECT_FALSE(p.heap().RecordedWholeLife());
  EventFeeder feeder(&p.analysis);
  feeder.Event({.api = Api::kFree, .address = 0x999});
  feeder.Event({.api = Api::kMalloc, .address = 0x100, .size = 24, .stack = 3});
  feeder.Event({.api = Api::kRealloc, .address = 0x200, .size = 64, .old_address = 0x998});
  feeder.Event({.api = Api::kFree, .address = 0x100});
  EXPECT_EQ(p.heap().freed_before_recording(), 2u);
  EXPECT_EQ(p.heap().live_bytes(), 64u);  // the realloc's new block
  EXPECT_EQ(mismatches.total(), 0u);
  EXPECT_EQ(p.summary.frees(), 3u);
}

TEST(LeaksTest, WholeLifeUntilTheFirstSwitch) {
  Pass p;
  MismatchAnalyzer mismatches;
  p.analysis.Add(&mismatches);
  p.analysis.OnProcess(format::ProcessInfo{});  // from_start
  EventFeeder feeder(&p.analysis);
  feeder.Event({.api = Api::kFree, .address = 0x999});  // a wild free: a mismatch
  EXPECT_TRUE(p.heap().RecordedWholeLife());
  feeder.Marker(format::kRecordingStopLabel);
  feeder.Event({.api = Api::kFree, .address = 0x998});
  feeder.Marker(format::kRecordingStartLabel);
  feeder.Event({.api = Api::kFree, .address = 0x997});
  EXPECT_FALSE(p.heap().RecordedWholeLife());
  EXPECT_EQ(mismatches.total(), 1u);
  EXPECT_EQ(p.heap().freed_before_recording(), 2u);
  EXPECT_EQ(p.heap().unknown_frees(), 3u);
}

TEST(LeaksTest, FreeOfUnknownBlockIsHarmless) {
  Pass p;
  const auto sites =
      Feed({{.api = Api::kFree, .address = 0x999}, {.api = Api::kDelete, .address = 0x998}}, &p);
  EXPECT_TRUE(sites.empty());
  EXPECT_EQ(p.heap().live_bytes(), 0u);
  EXPECT_EQ(p.heap().unknown_frees(), 2u);
}

}  // namespace
}  // namespace heaprec::analyzers
