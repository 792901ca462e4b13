// PageData on traces whose every number is known: two stacks that name the
// same frames become one node and their cells add; a base trace's stacks
// land on the same nodes; summary, buckets, markers and warnings as the
// analyses say.
#include "analyzers/html/page_data.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>

#include "analyzers/test_events.h"

namespace heaprec::analyzers::html {
namespace {

using format::Api;
using nlohmann::json;

// One trace: module "app" with main -> {make, make (another call, same line),
// grow, an unnamed function}; make leaks 2 x 100, grow leaks nothing. The
// module is loaded `bias` above its usual place (another run, ASLR).
struct Trace {
  Analysis analysis;
  SummaryAnalyzer summary;
  PeakAnalyzer peak;
  HotAnalyzer hot;
  RangeProfile range;
  explicit Trace(uint64_t bias = 0) {
    for (Analyzer* a : std::initializer_list<Analyzer*>{&summary, &peak, &hot, &range}) {
      analysis.Add(a);
    }
    analysis.OnProcess(
        {.program = "/bin/app", .args = {"/bin/app", "-x"}, .pid = 42, .hostname = "host"});
    analysis.OnModule({.id = 1,
                       .path = "/bin/app",
                       .load_address = 0x1000 + bias,
                       .ranges = {{0x1000 + bias, 0x9000 + bias, 0}}});
    // Stacks: 1 = main; 2 = main > make@0x2000; 3 = main > make@0x2008 (the
    // same line); 4 = main > grow; 5 = main > a function without a name.
    analysis.OnStackNode({1, 0, 0x1100 + bias});
    analysis.OnStackNode({2, 1, 0x2000 + bias});
    analysis.OnStackNode({3, 1, 0x2008 + bias});
    analysis.OnStackNode({4, 1, 0x3000 + bias});
    analysis.OnStackNode({5, 1, 0x4567 + bias});
    analysis.OnSymbol({0x1100 + bias, 1, {{"main", "app.c", 10, 0}}});
    analysis.OnSymbol({0x2000 + bias, 1, {{"make", "app.c", 20, 0}}});
    analysis.OnSymbol({0x2008 + bias, 1, {{"make", "app.c", 20, 0}}});
    analysis.OnSymbol({0x3000 + bias, 1, {{"grow", "app.c", 30, 0}}});
  }
  void Finish() { range.Finish(analysis.heap()); }
};

int FindNode(const json& page, const std::string& function) {
  const json& names = page["strings"];
  for (size_t n = 1; n < page["nodes"]["frame"].size(); ++n) {
    const int frame = page["nodes"]["frame"][n];
    if (names[page["frames"]["function"][size_t(frame)].get<int>()] == function) return int(n);
  }
  return -1;
}

// Sum of a cell column over a node's cells.
int64_t Sum(const json& cells, int node, const char* column) {
  int64_t sum = 0;
  for (size_t i = 0; i < cells["node"].size(); ++i) {
    if (cells["node"][i] == node) sum += cells[column][i].get<int64_t>();
  }
  return sum;
}

TEST(PageDataTest, StacksThatNameTheSameFramesAreOneSite) {
  Trace t;
  EventFeeder f(&t.analysis);
  f.Event({.api = Api::kMalloc, .address = 0x10, .size = 100, .stack = 2});
  f.Marker("half");
  f.Event({.api = Api::kMalloc, .address = 0x20, .size = 100, .stack = 3});
  f.Event({.api = Api::kMalloc, .address = 0x30, .size = 5000, .stack = 4});
  f.Event({.api = Api::kFree, .address = 0x30, .stack = 4});
  t.Finish();
  PageInputs in{{"t.zst", {2, 1}, false}, &t.analysis, &t.summary, &t.range};
  const json page = PageData(in);

  EXPECT_EQ(page["trace"]["program"], "/bin/app");
  EXPECT_EQ(page["trace"]["args"], json({"/bin/app", "-x"}));
  EXPECT_EQ(page["trace"]["pid"], 42);
  EXPECT_EQ(page["trace"]["format_version"], "2.1");
  EXPECT_EQ(page["summary"]["allocations"], 3);
  EXPECT_EQ(page["summary"]["leaked_bytes"], 200);
  EXPECT_EQ(page["summary"]["peak_bytes"], 5200);
  EXPECT_EQ(page["summary"]["temporaries"], 1);
  EXPECT_EQ(page["summary"]["recorded_whole_life"], true);
  EXPECT_EQ(page["summary"]["freed_before_recording"], 0);
  EXPECT_EQ(page["markers"], json::parse(R"([{"label": "half", "time_ns": 2000000,
                                               "bucket": 1, "exact": true}])"));
  EXPECT_EQ(page["warnings"], json::array());
  EXPECT_EQ(page["base"], nullptr);

  // Nodes: root, main, make, grow; make's two return addresses are one node.
  EXPECT_EQ(page["nodes"]["parent"], json({-1, 0, 1, 1}));
  const int make = FindNode(page, "make"), grow = FindNode(page, "grow");
  ASSERT_GT(make, 0);
  ASSERT_GT(grow, 0);
  EXPECT_EQ(page["nodes"]["parent"][size_t(make)], FindNode(page, "main"));
  const json& cells = page["cells"];
  EXPECT_EQ(Sum(cells, make, "leak_n"), 2);
  EXPECT_EQ(Sum(cells, make, "leak_b"), 200);
  EXPECT_EQ(Sum(cells, make, "calls_n"), 2);
  EXPECT_EQ(Sum(cells, grow, "calls_b"), 5000);
  EXPECT_EQ(Sum(cells, grow, "temp_n"), 1);
  EXPECT_EQ(Sum(cells, grow, "leak_n"), 0);
  // Four events, four buckets; the peak (5200) in the third.
  EXPECT_EQ(page["buckets"]["max_live"], json({100, 200, 5200, 200}));
  EXPECT_EQ(page["buckets"]["start_ns"][2], 3000000);
  // grow held 5000 B at bucket 2's highest moment; bucket 3's is after its free.
  int64_t grow_peak[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < cells["node"].size(); ++i) {
    if (cells["node"][i] == grow) grow_peak[cells["bucket"][i].get<int>()] = cells["peak_b"][i];
  }
  EXPECT_EQ(grow_peak[2], 5000);
  EXPECT_EQ(grow_peak[3], -5000);
  const json& frames = page["frames"];
  const int frame = page["nodes"]["frame"][size_t(make)];
  EXPECT_EQ(page["strings"][frames["file"][size_t(frame)].get<size_t>()], "app.c");
  EXPECT_EQ(frames["line"][size_t(frame)], 20);
  EXPECT_EQ(page["strings"][frames["module"][size_t(frame)].get<size_t>()], "app");
}

// A recording of part of the run (heaprec --start-paused): the page's
// summary carries what the header shows, frees of blocks made before it.
TEST(PageDataTest, PartOfTheRunCountsFreesOfBlocksMadeBefore) {
  Trace t;
  EventFeeder f(&t.analysis);
  f.Event({.api = Api::kFree, .address = 0x90});  // made before the start marker
  f.Marker("heaprec:start");
  f.Event({.api = Api::kMalloc, .address = 0x10, .size = 100, .stack = 2});
  f.Event({.api = Api::kFree, .address = 0x80});
  t.Finish();
  PageInputs in{{"t.zst", {3, 3}, false}, &t.analysis, &t.summary, &t.range};
  const json page = PageData(in);
  EXPECT_EQ(page["summary"]["recorded_whole_life"], false);
  // The first free came before the switch, in a trace recorded from the
  // start so far: a bad free then, not one of these.
  EXPECT_EQ(page["summary"]["freed_before_recording"], 1);
  EXPECT_EQ(page["summary"]["leaked_bytes"], 100);
}

TEST(PageDataTest, BaseStacksLandOnTheSameNodes) {
  Trace now, before;
  EventFeeder f(&now.analysis), g(&before.analysis);
  f.Event({.api = Api::kMalloc, .address = 0x10, .size = 100, .stack = 2});
  g.Event({.api = Api::kMalloc, .address = 0x10, .size = 30, .stack = 3});  // make again
  g.Event({.api = Api::kMalloc, .address = 0x20, .size = 7, .stack = 1});   // main itself
  now.Finish();
  before.Finish();
  PageBase base{"before.zst", &before.analysis, &before.summary, &before.peak, &before.hot};
  PageInputs in{{"now.zst", {2, 1}, false}, &now.analysis, &now.summary, &now.range};
  in.base = &base;
  const json page = PageData(in);
  const json& sites = page["base"]["sites"];
  const int make = FindNode(page, "make"), main = FindNode(page, "main");
  ASSERT_EQ(sites["node"], json({main, make}));
  EXPECT_EQ(sites["leak_b"], json({7, 30}));
  EXPECT_EQ(sites["peak_b"], json({7, 30}));
  EXPECT_EQ(sites["calls_n"], json({1, 1}));
  EXPECT_EQ(page["base"]["summary"]["leaked_bytes"], 37);
  EXPECT_EQ(page["base"]["path"], "before.zst");
  EXPECT_TRUE(page["base"]["leak_kinds"].is_null());  // no scan: no kinds
}

TEST(PageDataTest, AnotherRunsUnnamedFramesLandOnTheSameNodes) {
  // The same program loaded elsewhere: its frame without a name matches by
  // module and offset, never by address, so nothing is new.
  Trace now(0x7f0000000000), before(0x550000000000);
  EventFeeder f(&now.analysis), g(&before.analysis);
  f.Event({.api = Api::kMalloc, .address = 0x10, .size = 64, .stack = 5});
  g.Event({.api = Api::kMalloc, .address = 0x10, .size = 64, .stack = 5});
  now.Finish();
  before.Finish();
  PageBase base{"before.zst", &before.analysis, &before.summary, &before.peak, &before.hot};
  PageInputs in{{"now.zst", {2, 1}, false}, &now.analysis, &now.summary, &now.range};
  in.base = &base;
  const json page = PageData(in);
  EXPECT_EQ(page["nodes"]["parent"], json({-1, 0, 1}));  // root, main, the unnamed one
  EXPECT_EQ(page["base"]["sites"]["node"], json({2}));
  EXPECT_EQ(Sum(page["cells"], 2, "leak_b"), 64);
  const json& frames = page["frames"];
  const size_t frame = page["nodes"]["frame"][2];
  EXPECT_EQ(page["strings"][frames["function"][frame].get<size_t>()], "??");
  EXPECT_EQ(frames["offset"][frame], "0x3567");
  EXPECT_EQ(frames["address"][frame], "0x7f0000004567");
}

TEST(PageDataTest, WarningsSayWhatIsMissing) {
  Trace t;
  EventFeeder f(&t.analysis);
  f.Event({.api = Api::kMalloc, .address = 0x10, .size = 1, .stack = 2});
  format::EndRecord end;
  end.counters = {{"dropped_events", 3}, {"reentrant_calls", 9}, {"stack_table_full", 0}};
  t.analysis.OnEnd(end);
  t.Finish();
  PageInputs in{{"t.zst", {2, 1}, /*truncated=*/true}, &t.analysis, &t.summary, &t.range};
  in.notes = {"no symbols for modules not found on disk: libgone.so"};
  const json page = PageData(in);
  ASSERT_EQ(page["warnings"].size(), 3u) << page["warnings"].dump();
  EXPECT_NE(page["warnings"][0].get<std::string>().find("truncated"), std::string::npos);
  EXPECT_NE(page["warnings"][1].get<std::string>().find("libgone.so"), std::string::npos);
  EXPECT_EQ(page["warnings"][2].get<std::string>().rfind("3 events were not recorded", 0), 0u);
  EXPECT_EQ(page["trace"]["truncated"], true);
}

}  // namespace
// With a leak scan, the leaks view counts the kinds shown (valgrind's
// default: definitely and possibly lost), as heapreplay --leaks lists them;
// --leak-kinds=all counts every live block.
TEST(PageDataTest, LeaksFollowTheKindsShown) {
  using K = format::LeakKind;
  for (const bool all : {false, true}) {
    Trace t;
    EventFeeder f(&t.analysis);
    f.Event({.api = Api::kMalloc, .address = 0x10, .size = 100, .stack = 2});  // definite
    f.Event({.api = Api::kMalloc, .address = 0x20, .size = 30, .stack = 3});   // reachable
    f.Event({.api = Api::kMalloc, .address = 0x30, .size = 7, .stack = 4});    // indirect
    format::LeakScan scan;
    scan.reason = format::LeakScan::Reason::kExit;
    scan.blocks = {1, 2, 3};
    for (const K k : {K::kDefinite, K::kReachable, K::kIndirect}) {
      scan.kinds.push_back(format::LeakScan::PackKind(k, format::LeakHeuristic::kNone));
    }
    scan.block_roots = {0, 0, 0};
    f.LeakScan(scan);
    const LeakReport leaks =
        BuildLeakReport(t.analysis.heap(), t.analysis.LeakScanNow(), t.analysis.LeakScanMissing(),
                        t.analysis.symbols(), nullptr);
    const LeakKindSet shown = all ? LeakKindSet::All() : DefaultLeakKinds();
    t.range.Finish(t.analysis.heap(), ShownBlocks(leaks, shown));
    PageInputs in{{"t.zst", {3, 1}, false}, &t.analysis, &t.summary, &t.range};
    in.leaks = &leaks;
    in.leak_kinds = shown;
    const json page = PageData(in);
    const json& cells = page["cells"];
    const int make = FindNode(page, "make"), grow = FindNode(page, "grow");
    EXPECT_EQ(Sum(cells, make, "leak_b"), all ? 130 : 100);
    EXPECT_EQ(Sum(cells, grow, "leak_b"), all ? 7 : 0);
    EXPECT_EQ(page["leaks"]["bytes"], all ? 137 : 100);
    EXPECT_EQ(page["leaks"]["blocks"], all ? 3 : 1);
    EXPECT_EQ(page["leaks"]["shown_kinds"], all ? "all" : "definite,possible");
    EXPECT_EQ(page["leaks"]["kinds"]["still_reachable"]["bytes"], 30);
    EXPECT_EQ(page["leaks"]["kinds"]["indirectly_lost"]["blocks"], 1);
    EXPECT_EQ(page["leaks"]["kinds_unknown"], "");
    EXPECT_EQ(page["summary"]["leaked_bytes"], 137);  // every block live, as ever
  }
}

// "leak_kinds": every live block by node, bucket and kind (the default
// kinds among them add up to the cells' leak_*), what holds the still
// reachable ones, and null without a scan.
TEST(PageDataTest, LeakKindsByNodeBucketAndKind) {
  using K = format::LeakKind;
  Trace t;
  EventFeeder f(&t.analysis);
  f.Event({.api = Api::kMalloc, .address = 0x10, .size = 100, .stack = 2});  // definite
  f.Marker("half");
  f.Event({.api = Api::kMalloc, .address = 0x20, .size = 30, .stack = 3});  // reachable
  f.Event({.api = Api::kMalloc, .address = 0x30, .size = 7, .stack = 4});   // indirect
  f.Event({.api = Api::kMalloc, .address = 0x40, .size = 50, .stack = 3});  // reachable
  format::LeakScan scan;
  scan.reason = format::LeakScan::Reason::kExit;
  scan.blocks = {1, 2, 3, 4};
  for (const K k : {K::kDefinite, K::kReachable, K::kIndirect, K::kReachable}) {
    scan.kinds.push_back(format::LeakScan::PackKind(k, format::LeakHeuristic::kNone));
  }
  scan.roots = {{.id = 1, .name = "g_cache"}, {.id = 2, .name = "stack of thread 1"}};
  scan.block_roots = {0, 1, 0, 2};
  f.LeakScan(scan);
  const LeakReport leaks =
      BuildLeakReport(t.analysis.heap(), t.analysis.LeakScanNow(), t.analysis.LeakScanMissing(),
                      t.analysis.symbols(), nullptr);
  t.range.Finish(t.analysis.heap(), ShownBlocks(leaks, DefaultLeakKinds()));
  PageInputs in{{"t.zst", {3, 1}, false}, &t.analysis, &t.summary, &t.range};
  in.leaks = &leaks;
  const json page = PageData(in);
  const json& lk = page["leak_kinds"];
  ASSERT_TRUE(lk.is_object()) << page.dump();
  const int make = FindNode(page, "make"), grow = FindNode(page, "grow");
  const json& cells = lk["cells"];
  // (node, bucket, kind) -> bytes, blocks.
  std::map<std::tuple<int, int, int>, std::pair<int64_t, int64_t>> got;
  for (size_t i = 0; i < cells["node"].size(); ++i) {
    got[{cells["node"][i], cells["bucket"][i], cells["kind"][i]}] = {cells["b"][i], cells["n"][i]};
  }
  // One event per bucket (so few events): make's blocks in buckets 0, 1 and 3.
  ASSERT_EQ(page["buckets"]["start_ns"].size(), 4u);
  const std::map<std::tuple<int, int, int>, std::pair<int64_t, int64_t>> want = {
      {{make, 0, int(K::kDefinite)}, {100, 1}},
      {{make, 1, int(K::kReachable)}, {30, 1}},
      {{grow, 2, int(K::kIndirect)}, {7, 1}},
      {{make, 3, int(K::kReachable)}, {50, 1}}};
  EXPECT_EQ(got, want);
  // The default kinds (definite, possible) of the blocks by kind are the cells' leaks.
  EXPECT_EQ(Sum(page["cells"], make, "leak_b"), 100);
  EXPECT_EQ(Sum(page["cells"], grow, "leak_b"), 0);
  // Held by: make's reachable blocks, by root.
  const json& held = lk["held_by"];
  std::map<std::string, int64_t> roots;
  for (size_t i = 0; i < held["node"].size(); ++i) {
    EXPECT_EQ(held["node"][i], make);
    roots[lk["roots"][held["root"][i].get<size_t>()]] += held["bytes"][i].get<int64_t>();
  }
  EXPECT_EQ(roots, (std::map<std::string, int64_t>{{"g_cache", 30}, {"stack of thread 1", 50}}));

  // Without a scan: null.
  Trace none;
  EventFeeder g(&none.analysis);
  g.Event({.api = Api::kMalloc, .address = 0x10, .size = 100, .stack = 2});
  none.Finish();
  PageInputs in2{{"t.zst", {3, 1}, false}, &none.analysis, &none.summary, &none.range};
  EXPECT_TRUE(PageData(in2)["leak_kinds"].is_null());
}

// Without a scan the kinds are unknown, every live block counts and the page
// says why.
TEST(PageDataTest, LeaksWithoutAScanCountEveryBlock) {
  Trace t;
  EventFeeder f(&t.analysis);
  f.Event({.api = Api::kMalloc, .address = 0x10, .size = 100, .stack = 2});
  t.Finish();
  PageInputs in{{"t.zst", {2, 1}, false}, &t.analysis, &t.summary, &t.range};
  const json page = PageData(in);
  EXPECT_EQ(page["leaks"]["bytes"], 100);
  EXPECT_TRUE(page["leaks"]["kinds"].is_null());
  EXPECT_NE(page["leaks"]["kinds_unknown"].get<std::string>().find("no leak scan"),
            std::string::npos);
}

}  // namespace heaprec::analyzers::html
