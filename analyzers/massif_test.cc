// MassifAnalyzer and MassifText over events whose answers are known: the
// regular snapshots stay evenly spaced and bounded, markers, the peak and the
// end are detailed, and the tree keeps massif's 1% rule.
#include "analyzers/massif.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace heaprec::analyzers
