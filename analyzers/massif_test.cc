// MassifAnalyzer and MassifText over events whose answers are known: the
// regular snapshots stay evenly spaced and bounded, markers, the peak and the
// end are detailed, the tree keeps massif's 1% rule, and RSS samples give
// each snapshot the anonymous resident memory beyond the heap.
#include "analyzers/massif.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "analyzers/analysis.h"
#include "analyzers/massif_text.h"
#include "analyzers/test_events.h"
#include "analyzers/test_symbols.h"

namespace heaprec::analyzers {
namespace {

format::Event Malloc(uint64_t address, uint64_t size, uint32_t stack) {
  return {.api = format::Api::kMalloc, .address = address, .size = size, .stack = stack};
}
format::Event Free(uint64_t address) { return {.api = format::Api::kFree, .address = address}; }

struct Pass {
  Pass() {
    analysis.Add(&peak);
    analysis.Add(&massif);
  }
  Analysis analysis;
  PeakAnalyzer peak;
  MassifAnalyzer massif{&peak};
};

TEST(MassifTest, PeakMarkerAndEndSnapshots) {
  Pass p;
  EventFeeder f(&p.analysis);
  f.Event(Malloc(0x10, 100, 1));  // 1 ms
  f.Marker("half");
  f.Event(Malloc(0x20, 300, 2));  // 2 ms: 400, the peak
  f.Event(Free(0x20));            // 3 ms: 100
  const std::vector<MassifSnapshot> s = p.massif.Snapshots();
  // Regular at 0, 1, 2 and 3 ms (each before the event at that time), the
  // marker, the peak, the end.
  ASSERT_EQ(s.size(), 7u);
  int peaks = 0;
  for (const MassifSnapshot& x : s) {
    if (x.peak) {
      ++peaks;
      EXPECT_EQ(x.bytes, 400u);
      EXPECT_EQ(x.time_ns, 2000000u);
      ASSERT_EQ(x.sites.size(), 2u);
      EXPECT_EQ(x.sites[0], (Site{2, 300, 1}));
    }
    if (x.why == "marker half") {
      EXPECT_TRUE(x.detailed);
      EXPECT_EQ(x.bytes, 100u);
    }
  }
  EXPECT_EQ(peaks, 1);
  EXPECT_EQ(s.back().why, "end");
  EXPECT_EQ(s.back().bytes, 100u);
  for (size_t i = 1; i < s.size(); ++i) EXPECT_LE(s[i - 1].time_ns, s[i].time_ns);
}

TEST(MassifTest, RegularSnapshotsStayEvenAndBounded) {
  Pass p;
  EventFeeder f(&p.analysis);
  for (uint64_t i = 0; i < 5000; ++i) f.Event(Malloc(0x1000 + 16 * i, 8, 1));  // 1 ms apart
  std::vector<MassifSnapshot> regular;
  for (const MassifSnapshot& x : p.massif.Snapshots()) {
    if (x.why.empty()) regular.push_back(x);
  }
  EXPECT_GE(regular.size(), MassifAnalyzer::kMaxRegular / 2);
  EXPECT_LE(regular.size(), MassifAnalyzer::kMaxRegular);
  const uint64_t step = p.massif.interval_ns();
  for (size_t i = 0; i < regular.size(); ++i) {
    EXPECT_EQ(regular[i].time_ns, i * step);
    EXPECT_EQ(regular[i].detailed, i % MassifAnalyzer::kDetailedEvery == 0) << i;
    // Before the event at that time: the blocks of the events before it.
    EXPECT_EQ(regular[i].bytes,
              regular[i].time_ns == 0 ? 0 : (regular[i].time_ns / 1000000 - 1) * 8);
  }
}

TEST(MassifTest, TextKeepsTheOnePercentRule) {
  TestSymbols symbols;
  symbols.AddModule(1, "/bin/app", 0x1000, 0x9000);
  symbols.AddSymbol(0x1100, 1, {{"main", "src/app.c", 10}});
  symbols.AddSymbol(0x1200, 1, {{"big", "src/app.c", 20}});
  symbols.AddSymbol(0x1300, 1, {{"small", "src/app.c", 30}});
  symbols.AddSymbol(0x1400, 1, {{"tiny", "src/app.c", 40}});
  const uint32_t big = symbols.Stack({0x1100, 0x1200});
  const uint32_t small = symbols.Stack({0x1100, 0x1300});
  const uint32_t tiny = symbols.Stack({0x1100, 0x1400});
  Pass p;
  EventFeeder f(&p.analysis);
  f.Event(Malloc(0x10, 9900, big));
  f.Event(Malloc(0x20, 60, small));  // below 1% of 10000
  f.Event(Malloc(0x30, 40, tiny));   // below too
  const std::vector<MassifSnapshot> snapshots = p.massif.Snapshots();
  const std::string text = MassifText({"d", "prog"}, snapshots, symbols.table());
  EXPECT_EQ(text.rfind("desc: d\ncmd: prog\ntime_unit: ms\n", 0), 0u) << text;
  // The peak (and the end): big's chain, then one line for the two below 1%.
  EXPECT_NE(text.find("heap_tree=peak\n"
                      "n2: 10000 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.\n"
                      " n1: 9900 0x1200: big (app.c:20)\n"
                      "  n0: 9900 0x1100: main (app.c:10)\n"
                      " n0: 100 in 2 places, all below massif's threshold (1.00%)\n"),
            std::string::npos)
      << text;
}

// Regular snapshots by time; the others by what they are (pointers into all).
std::map<std::string, const MassifSnapshot*> ByName(const std::vector<MassifSnapshot>& all) {
  std::map<std::string, const MassifSnapshot*> out;
  for (const MassifSnapshot& x : all) {
    out[x.why.empty() ? std::to_string(x.time_ns / 1000) + "us" : x.why] = &x;
  }
  return out;
}

TEST(MassifTest, ExtraIsTheAnonymousRssBeyondTheHeap) {
  Pass p;
  EventFeeder f(&p.analysis);
  f.Rss(1000, 5000);               // 0.5 ms; the file pages are not the heap's
  f.Event(Malloc(0x10, 100, 1));   // 1 ms: 100
  f.Rss(3000);                     // 1.5 ms
  f.Event(Malloc(0x20, 4000, 2));  // 2 ms: 4100, the peak
  f.Rss(4500);                     // 2.5 ms, at the peak: the block touched
  f.Rss(6000);
  f.Event(Free(0x20));           // 3 ms: 100
  f.Rss(2000);                   // 3.5 ms
  f.Event(Malloc(0x30, 10, 1));  // 4 ms: 110
  f.Rss(2500);                   // 4.5 ms, after the last event
  EXPECT_EQ(p.massif.resident(), MassifResident::kAnonymous);
  const std::vector<MassifSnapshot> all = p.massif.Snapshots();
  const auto s = ByName(all);
  ASSERT_EQ(s.size(), 7u);
  // Each regular one: the latest sample at or before its time, minus the heap.
  const std::vector<std::tuple<std::string, uint64_t, uint64_t>> want = {
      {"0us", 0, 1000},        // none before: the first after (no event between)
      {"1000us", 0, 1000},     // 0.5 ms's 1000
      {"2000us", 100, 2900},   // 1.5 ms's 3000
      {"3000us", 4100, 1900},  // 2.5 ms's 6000
      {"4000us", 100, 1900},   // 3.5 ms's 2000
      // The peak: the highest sample while the heap stood there (6000).
      {"peak", 4100, 1900},
      // The end: after the last event, the first sample after it.
      {"end", 110, 2390}};
  for (const auto& [name, bytes, extra] : want) {
    ASSERT_EQ(s.count(name), 1u) << name;
    EXPECT_EQ(s.at(name)->bytes, bytes) << name;
    EXPECT_EQ(s.at(name)->extra_bytes, extra) << name;
  }
  const std::string text = MassifText({"d", "prog"}, all, TestSymbols().table());
  EXPECT_NE(text.find("mem_heap_B=4100\nmem_heap_extra_B=1900\nmem_stacks_B=0\nheap_tree=peak\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("mem_heap_B=0\nmem_heap_extra_B=1000\n"), std::string::npos) << text;
}

TEST(MassifTest, PeakTakesTheFirstSampleAfterAndExtraStopsAtZero) {
  Pass p;
  EventFeeder f(&p.analysis);
  // A heaptrack recording's samples: of no known kind, all of it counts.
  p.analysis.OnRssSample({.seq = 1, .time_ns = 500000, .unsplit_bytes = 2000});
  f.Event(Malloc(0x10, 8000, 1));  // 1 ms: the peak, not yet resident
  f.Event(Free(0x10));             // 2 ms, before any sample
  p.analysis.OnRssSample({.seq = 3, .time_ns = 2500000, .unsplit_bytes = 9000});
  f.Event(Malloc(0x20, 10, 1));  // 3 ms
  EXPECT_EQ(p.massif.resident(), MassifResident::kUnsplit);
  const std::vector<MassifSnapshot> all = p.massif.Snapshots();
  const auto s = ByName(all);
  // Before the free: 8000 live, 2000 resident: no extra (not below 0).
  EXPECT_EQ(s.at("2000us")->bytes, 8000u);
  EXPECT_EQ(s.at("2000us")->extra_bytes, 0u);
  EXPECT_EQ(s.at("3000us")->extra_bytes, 9000u);
  // The peak: no sample while it stood, so the first after it (9000).
  EXPECT_EQ(s.at("peak")->bytes, 8000u);
  EXPECT_EQ(s.at("peak")->extra_bytes, 1000u);
}

TEST(MassifTest, SnapshotAfterAFreeTakesTheNextSample) {
  Pass p;
  EventFeeder f(&p.analysis);
  f.Event(Malloc(0x10, 8000, 1));  // 1 ms
  f.Rss(9000);                     // 1.5 ms: the block resident
  f.Event(Free(0x10));             // 2 ms: 0, and the memory given back
  f.Marker("freed");               // 3 ms
  p.analysis.OnRssSample({.seq = 3, .time_ns = 3500000, .anon_bytes = 1500});
  format::Event late = Malloc(0x20, 10, 1);
  late.time_ns = 4000000;
  f.Event(late);
  const std::vector<MassifSnapshot> all = p.massif.Snapshots();
  const auto s = ByName(all);
  // Before the first event and its first sample: the heap changed between.
  EXPECT_EQ(s.at("0us")->extra_bytes, 0u);
  EXPECT_EQ(s.at("2000us")->extra_bytes, 1000u);
  // After the free, the sample before it (9000) saw the block: the next one
  // (1500) saw the heap these snapshots show.
  EXPECT_EQ(s.at("marker freed")->bytes, 0u);
  EXPECT_EQ(s.at("marker freed")->extra_bytes, 1500u);
  EXPECT_EQ(s.at("3000us")->bytes, 0u);
  EXPECT_EQ(s.at("3000us")->extra_bytes, 1500u);
  EXPECT_EQ(s.at("4000us")->extra_bytes, 1500u);
}

TEST(MassifTest, WithoutSamplesExtraIsZeroAndTheDescSaysSo) {
  Pass p;
  EventFeeder f(&p.analysis);
  f.Event(Malloc(0x10, 100, 1));
  f.Event(Malloc(0x20, 300, 2));
  for (const MassifSnapshot& x : p.massif.Snapshots()) EXPECT_EQ(x.extra_bytes, 0u) << x.why;
  EXPECT_EQ(p.massif.resident(), MassifResident::kNone);
  EXPECT_NE(MassifExtraNote(MassifResident::kNone).find("is 0: the trace holds no RSS samples"),
            std::string::npos);
  EXPECT_NE(MassifExtraNote(MassifResident::kAnonymous).find("anonymous RSS"), std::string::npos);
  EXPECT_NE(MassifExtraNote(MassifResident::kUnsplit).find("heaptrack's samples"),
            std::string::npos);
}

}  // namespace
}  // namespace heaprec::analyzers
