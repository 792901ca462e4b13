// Every Analyzer over event sequences whose answers are known exactly: peak
// sites, hot sites, temporaries, the size histogram, the timeline, moments
// (--at, --from/--to), diffs and mismatched frees.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "analyzers/analysis.h"
#include "analyzers/diff.h"
#include "analyzers/histogram.h"
#include "analyzers/hot.h"
#include "analyzers/leaks.h"
#include "analyzers/mismatches.h"
#include "analyzers/missing_symbols.h"
#include "analyzers/peak.h"
#include "analyzers/summary.h"
#include "analyzers/test_events.h"
#include "analyzers/timeline.h"

namespace heaprec::analyzers {
namespace {

using format::Api;
using format::Event;

// One pass with every analyzer.
struct Pass {
  explicit Pass(const Moment& stop = {}) : analysis(stop) {
    for (Analyzer* a : std::initializer_list<Analyzer*>{&summary, &peak, &hot, &histogram,
                                                        &timeline, &mismatches}) {
      analysis.Add(a);
    }
  }
  Analysis analysis;
  SummaryAnalyzer summary;
  PeakAnalyzer peak;
  HotAnalyzer hot;
  HistogramAnalyzer histogram;
  TimelineAnalyzer timeline{4};
  MismatchAnalyzer mismatches;
};

using Feeder = EventFeeder;

Event Malloc(uint64_t address, uint64_t size, uint32_t stack, Api api = Api::kMalloc) {
  return {.api = api, .address = address, .size = size, .stack = stack};
}
Event Free(uint64_t address, Api api = Api::kFree, uint32_t stack = 0, uint64_t size = 0) {
  return {.api = api, .address = address, .size = size, .stack = stack};
}

TEST(PeakTest, SitesAreWhatEachStackHeldAtThePeak) {
  Pass p;
  Feeder f(&p.analysis);
  f.Event(Malloc(0x10, 100, 1));  // live 100
  f.Event(Malloc(0x20, 50, 2));   // 150
  f.Event(Free(0x10));            // 50
  f.Event(Malloc(0x30, 300, 3));  // 350  <- peak: stack 2 (50), stack 3 (300)
  f.Event(Malloc(0x40, 10, 1));   // 360  <- new peak: + stack 1 (10)
  f.Event(Free(0x30));            // 60
  f.Event(Malloc(0x50, 200, 2));  // 260
  EXPECT_EQ(p.peak.peak_bytes(), 360u);
  EXPECT_EQ(p.peak.peak_blocks(), 3u);
  EXPECT_EQ(p.peak.peak_seq(), 5u);
  EXPECT_EQ(p.peak.peak_time_ns(), 5000000u);
  const std::vector<Site> sites = p.peak.Sites();
  ASSERT_EQ(sites.size(), 3u);
  EXPECT_EQ(sites[0], (Site{3, 300, 1}));
  EXPECT_EQ(sites[1], (Site{2, 50, 1}));
  EXPECT_EQ(sites[2], (Site{1, 10, 1}));
  EXPECT_EQ(p.summary.peak_bytes(), 360u);
  // After the peak, stack 2 grew: the live totals say so, the peak does not.
  EXPECT_EQ(p.peak.live().all()[2].bytes, 250u);
}

TEST(PeakTest, ReallocMovesBytesBetweenStacks) {
  Pass p;
  Feeder f(&p.analysis);
  f.Event(Malloc(0x10, 100, 1));
  // Moved realloc: release, then the new block at stack 2.
  f.Event({.api = Api::kRealloc, .address = 0, .size = 0, .old_address = 0x10, .stack = 2});
  f.Event({.api = Api::kRealloc, .address = 0x20, .size = 400, .old_address = 0, .stack = 2});
  EXPECT_EQ(p.peak.peak_bytes(), 400u);
  const std::vector<Site> sites = p.peak.Sites();
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0], (Site{2, 400, 1}));
}

// Calls as valgrind and heaptrack count them (a realloc is a call, and a
// free of the block it releases), temporaries as heaptrack_print does: the
// freed block's (stack, size) equals the latest allocation's, nothing
// allocated or freed in between.
TEST(HotTest, CallsBytesAndTemporariesPerStack) {
  Pass p;
  Feeder f(&p.analysis);
  for (int i = 0; i < 3; ++i) {  // stack 7: 3 temporaries of 16 B
    f.Event(Malloc(0x100, 16, 7));
    f.Event(Free(0x100));
  }
  f.Event(Malloc(0x200, 1000, 8));
  f.Event(Malloc(0x300, 24, 9));
  f.Event(Free(0x200));  // not temporary: another allocation came between
  f.Event(Free(0x300));  // not temporary: a free came between
  // heaptrack keys by (stack, size), not by block: freeing the older of two
  // blocks of one site and size after the second is made is a temporary.
  f.Event(Malloc(0x500, 32, 10));
  f.Event(Malloc(0x600, 32, 10));
  f.Event(Free(0x500));  // temporary
  f.Event(Free(0x600));  // not: a free came between
  // A realloc in place right after the allocation of its block: an
  // allocation call, and the release of the old block is a temporary (its
  // free comes first, as heaptrack records a realloc).
  f.Event(Malloc(0x400, 8, 9));
  f.Event({.api = Api::kRealloc, .address = 0x400, .size = 64, .old_address = 0x400, .stack = 9});
  f.Event(Free(0x999000));  // a block never seen made: no event for heaptrack
  f.Event(Free(0x400));     // temporary: the realloc's block, (9, 64) as the latest

  std::map<uint32_t, Site> hot;
  for (const Site& s : p.hot.HotSites()) hot[s.stack] = s;
  ASSERT_EQ(hot.size(), 4u);
  EXPECT_EQ(hot[7], (Site{7, 48, 3}));
  EXPECT_EQ(hot[8], (Site{8, 1000, 1}));
  EXPECT_EQ(hot[9], (Site{9, 24 + 8 + 64, 3}));
  EXPECT_EQ(hot[10], (Site{10, 64, 2}));
  std::map<uint32_t, Site> temps;
  for (const Site& s : p.hot.TemporarySites()) temps[s.stack] = s;
  ASSERT_EQ(temps.size(), 3u);
  EXPECT_EQ(temps[7], (Site{7, 48, 3}));
  EXPECT_EQ(temps[9], (Site{9, 8 + 64, 2}));
  EXPECT_EQ(temps[10], (Site{10, 32, 1}));
  EXPECT_EQ(p.hot.temporaries(), 6u);
  EXPECT_EQ(p.summary.temporaries(), 6u);
  EXPECT_EQ(p.summary.allocations(), 9u);  // 3 + 2 + 2 + 1 malloc + 1 realloc
  EXPECT_EQ(p.summary.frees(), 10u);       // 3 + 2 + 2 + the realloc's + the unknown + the last
  EXPECT_EQ(p.summary.bytes_allocated(), 48u + 1000 + 24 + 64 + 8 + 64);
}

TEST(HistogramTest, PowerOfTwoBuckets) {
  Pass p;
  Feeder f(&p.analysis);
  uint64_t a = 0x1000;
  for (uint64_t size : {0, 1, 2, 3, 4, 7, 8, 1024, 1500}) f.Event(Malloc(a += 0x1000, size, 1));
  EXPECT_EQ(HistogramAnalyzer::BucketOf(0), 0);
  EXPECT_EQ(HistogramAnalyzer::BucketOf(1), 1);
  EXPECT_EQ(HistogramAnalyzer::BucketOf(UINT64_MAX), 64);
  auto b = [&](int k) { return p.histogram.bucket(k); };
  EXPECT_EQ(b(0).count, 1u);
  EXPECT_EQ(b(1).count, 1u);
  EXPECT_EQ(b(2).count, 2u);  // 2, 3
  EXPECT_EQ(b(2).bytes, 5u);
  EXPECT_EQ(b(2).low, 2u);
  EXPECT_EQ(b(2).high, 3u);
  EXPECT_EQ(b(3).count, 2u);   // 4, 7
  EXPECT_EQ(b(4).count, 1u);   // 8
  EXPECT_EQ(b(11).count, 2u);  // 1024, 1500
  EXPECT_EQ(b(11).bytes, 2524u);
  EXPECT_EQ(b(11).low, 1024u);
  EXPECT_EQ(b(64).high, UINT64_MAX);
}

TEST(TimelineTest, BoundedPointsKeepTheMaximum) {
  Pass p;  // 4 points at most
  Feeder f(&p.analysis);
  // live after each event: 10 30 60 100 | 90 70 40 0 | 5
  uint64_t a = 0;
  for (uint64_t size : {10, 20, 30, 40}) f.Event(Malloc(a += 0x100, size, 1));
  for (uint64_t i = 1; i <= 4; ++i) f.Event(Free(i * 0x100));
  f.Event(Malloc(0x900, 5, 1));
  const std::vector<TimelinePoint>& t = p.timeline.points();
  EXPECT_EQ(p.timeline.events_per_point(), 4u);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0], (TimelinePoint{1000000, 1, 100, 100}));
  EXPECT_EQ(t[1], (TimelinePoint{5000000, 5, 0, 90}));
  EXPECT_EQ(t[2], (TimelinePoint{9000000, 9, 5, 5}));
  EXPECT_EQ(TimelineCsv({t[2]}), "time_s,seq,live_bytes,max_live_bytes\n0.009000,9,5,5\n");
}

TEST(MomentTest, Parse) {
  std::string error;
  EXPECT_EQ(ParseMoment("1.5s", &error)->time_ns, 1500000000u);
  EXPECT_EQ(ParseMoment("250ms", &error)->time_ns, 250000000u);
  EXPECT_EQ(ParseMoment("40us", &error)->time_ns, 40000u);
  EXPECT_EQ(ParseMoment("7ns", &error)->kind, Moment::Kind::kTime);
  EXPECT_EQ(ParseMoment("after-load", &error)->kind, Moment::Kind::kLabel);
  EXPECT_EQ(ParseMoment("10", &error)->label, "10");  // no unit: a label
  EXPECT_EQ(ParseMoment("end", &error)->kind, Moment::Kind::kEnd);
  EXPECT_FALSE(ParseMoment("", &error));
  EXPECT_FALSE(ParseMoment("1.2.3s", &error));
  EXPECT_NE(error.find("1.2.3s"), std::string::npos);
}

TEST(MomentTest, AtALabelStopsThePass) {
  std::string error;
  Pass p(*ParseMoment("half", &error));
  Feeder f(&p.analysis);
  f.Event(Malloc(0x10, 100, 1));
  f.Event(Malloc(0x20, 200, 2));
  f.Marker("half");
  f.Event(Free(0x10));
  f.Event(Malloc(0x30, 999, 3));
  ASSERT_TRUE(p.analysis.stopped());
  EXPECT_EQ(p.analysis.stop()->seq(), 3u);
  EXPECT_EQ(p.analysis.heap().live_bytes(), 300u);
  EXPECT_EQ(LeakSites(p.analysis.heap()).size(), 2u);
  EXPECT_EQ(p.summary.allocations(), 2u);
  EXPECT_EQ(p.peak.peak_bytes(), 300u);
}

TEST(MomentTest, AtATimeStopsBeforeTheFirstLaterEvent) {
  std::string error;
  Pass p(*ParseMoment("2ms", &error));
  Feeder f(&p.analysis);
  f.Event(Malloc(0x10, 100, 1));  // 1 ms
  f.Event(Malloc(0x20, 200, 2));  // 2 ms
  f.Event(Free(0x10));            // 3 ms: not applied
  EXPECT_TRUE(p.analysis.stopped());
  EXPECT_EQ(p.analysis.heap().live_bytes(), 300u);
  EXPECT_EQ(p.summary.frees(), 0u);
}

TEST(DiffTest, FromToWithinOneTrace) {
  Analysis a;
  std::string error;
  LiveSnapshot before(*ParseMoment("m1", &error)), after(Moment{});
  a.Add(&before);
  a.Add(&after);
  for (uint32_t id = 1; id <= 3; ++id) a.OnStackNode({id, 0, 0x1000 * id});
  Feeder f(&a);
  f.Event(Malloc(0x10, 100, 1));
  f.Event(Malloc(0x20, 50, 2));
  f.Marker("m1");
  f.Event(Malloc(0x30, 70, 1));  // stack 1 grows by 70
  f.Event(Free(0x20));           // stack 2 shrinks by 50
  f.Event(Malloc(0x40, 5, 3));   // stack 3 new: 5
  ASSERT_TRUE(before.watch().reached());
  const std::vector<DiffSite> d =
      DiffSites(before.Sites(), a.symbols(), after.Sites(), a.symbols());
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].bytes, 70);
  EXPECT_EQ(d[0].count, 1);
  EXPECT_EQ(d[0].before_bytes, 100u);
  EXPECT_EQ(d[0].after_bytes, 170u);
  EXPECT_EQ(d[0].stack[0].address, 0x1000u);
  EXPECT_EQ(d[1].bytes, 5);
  EXPECT_EQ(d[2].bytes, -50);
  EXPECT_EQ(d[2].count, -1);
}

TEST(DiffTest, AcrossTracesStacksMatchBySymbols) {
  // The same function at different addresses (another run, ASLR) matches.
  SymbolTable base, now;
  base.AddStackNode({1, 0, 0x1111});
  now.AddStackNode({1, 0, 0x2222});
  now.AddStackNode({2, 0, 0x3333});
  base.AddSymbol({0x1111, 0, {{"grow", "a.c", 10, 0}}});
  now.AddSymbol({0x2222, 0, {{"grow", "a.c", 10, 0}}});
  now.AddSymbol({0x3333, 0, {{"other", "a.c", 20, 0}}});
  const std::vector<DiffSite> d = DiffSites({{1, 1000, 10}}, base, {{1, 1500, 12}, {2, 8, 1}}, now);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].bytes, 500);
  EXPECT_EQ(d[0].count, 2);
  EXPECT_EQ(d[0].stack[0].function, "grow");
  EXPECT_EQ(d[0].stack[0].address, 0x2222u);  // the newer trace's
  EXPECT_EQ(d[1].bytes, 8);
}

// One run of a stripped program: /usr/bin/git (build-id ab12) loaded at
// `bias`, libc.so.6 (no build-id) at `bias` * 2; unnamed frames at the
// same offsets in every run.
SymbolTable StrippedRun(uint64_t bias) {
  SymbolTable t;
  t.AddModule({.id = 1,
               .path = "/usr/bin/git",
               .build_id = "\xab\x12",
               .load_address = bias,
               .ranges = {{bias + 0x1000, bias + 0x90000, 0x1000}}});
  t.AddModule({.id = 2,
               .path = "/lib/libc.so.6",
               .load_address = 2 * bias,
               .ranges = {{2 * bias + 0x1000, 2 * bias + 0x90000, 0x1000}}});
  t.AddStackNode({1, 0, 2 * bias + 0x2a0});   // libc+0x2a0, named
  t.AddStackNode({2, 1, bias + 0x1f069});     // git+0x1f069
  t.AddStackNode({3, 2, bias + 0x20000});     // git+0x20000
  t.AddStackNode({4, 2, 2 * bias + 0x5000});  // libc.so.6+0x5000
  t.AddSymbol({2 * bias + 0x2a0, 2, {{"__libc_start_main", "", 0, 0}}});
  return t;
}

TEST(FrameNameTest, FunctionElseModuleAndOffsetElseAddress) {
  const SymbolTable t = StrippedRun(0x560000000000);
  const std::vector<Frame> frames = t.Frames(3);
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(FrameName(frames[0]), "git+0x20000");
  EXPECT_EQ(frames[0].offset, 0x20000u);
  EXPECT_EQ(frames[0].build_id, "ab12");
  EXPECT_EQ(frames[0].function, "??");
  EXPECT_EQ(FrameName(frames[1]), "git+0x1f069");
  EXPECT_EQ(FrameName(frames[2]), "__libc_start_main");
  EXPECT_EQ(frames[2].offset, 0x2a0u);
  EXPECT_EQ(frames[2].build_id, "");
  EXPECT_EQ(FrameName(t.Frames(4)[0]), "libc.so.6+0x5000");
  Frame nowhere;
  nowhere.function = "??";
  nowhere.address = 0x7f00dead;
  EXPECT_EQ(FrameName(nowhere), "0x7f00dead");
}

// The table keeps each address's frames once worked out; whatever would
// change them (a later symbol, module or allocator list) is seen at once.
TEST(SymbolTableTest, KeptFramesFollowLaterSymbolsModulesAndAllocatorList) {
  SymbolTable t;
  t.AddStackNode({1, 0, 0x5000});
  t.AddStackNode({2, 1, 0x6000});
  EXPECT_EQ(FrameName(t.Frames(2)[0]), "0x6000");
  EXPECT_EQ(FrameName(t.Frames(1)[0]), "0x5000");
  t.AddModule({.id = 1, .path = "/opt/app", .load_address = 0, .ranges = {{0x1000, 0x9000, 0}}});
  EXPECT_EQ(FrameName(t.Frames(2)[0]), "app+0x6000");
  t.AddSymbol({0x6000, 1, {{"xmalloc", "x.c", 3, 0}}});
  std::vector<Frame> frames = t.Frames(2);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].function, "xmalloc");
  EXPECT_FALSE(frames[0].allocator);
  EXPECT_EQ(FrameName(frames[1]), "app+0x5000");
  AllocFunctions alloc;
  ASSERT_TRUE(alloc.Add("xmalloc"));
  t.SetAllocFunctions(alloc);
  frames = t.Frames(2);
  EXPECT_TRUE(frames[0].allocator);
  EXPECT_EQ(ViaIndex(frames), 1u);
  // The same answers however often asked, by stack or by address.
  EXPECT_EQ(t.FramesOf(0x6000).size(), 1u);
  EXPECT_TRUE(t.FramesOf(0x6000)[0].allocator);
  EXPECT_EQ(t.Frames(2)[1].offset, 0x5000u);
}

TEST(FrameKeyTest, UnnamedFramesByBuildIdOrModuleAndOffsetNeverAddress) {
  const SymbolTable one = StrippedRun(0x560000000000), two = StrippedRun(0x7a0000000000);
  for (uint32_t stack = 1; stack <= 4; ++stack) {
    const std::vector<Frame> a = one.Frames(stack), b = two.Frames(stack);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_NE(a[i].address, b[i].address);
      EXPECT_EQ(FrameKey(a[i]), FrameKey(b[i])) << FrameName(a[i]);
    }
  }
  // Other offsets, another build of the module, another module: other keys.
  Frame f = one.Frames(2)[0];
  Frame g = f;
  g.offset += 1;
  EXPECT_NE(FrameKey(f), FrameKey(g));
  g = f;
  g.build_id = "cd34";
  EXPECT_NE(FrameKey(f), FrameKey(g));
  // Without a build-id the module's name tells modules apart.
  Frame libc = one.Frames(4)[0], other = libc;
  other.module = "libm.so.6";
  EXPECT_NE(FrameKey(libc), FrameKey(other));
  // A named frame is its function, file and line wherever it is.
  Frame named = one.Frames(1)[0], moved = named;
  moved.offset += 0x100;
  moved.address += 0x100;
  EXPECT_EQ(FrameKey(named), FrameKey(moved));
  // Outside every module only the address is left.
  Frame x, y;
  x.function = y.function = "??";
  x.address = 1;
  y.address = 2;
  EXPECT_NE(FrameKey(x), FrameKey(y));
}

TEST(DiffTest, TwoRunsOfAStrippedProgramDiffToNothing) {
  const SymbolTable one = StrippedRun(0x560000000000), two = StrippedRun(0x7a0000000000);
  const std::vector<Site> sites = {{3, 4096, 1}, {4, 64, 2}, {2, 10, 1}};
  EXPECT_TRUE(DiffSites(sites, one, sites, two).empty());
  // A change in one stack is that stack alone.
  const std::vector<DiffSite> d =
      DiffSites(sites, one, {{3, 4096, 1}, {4, 96, 3}, {2, 10, 1}}, two);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].bytes, 32);
  EXPECT_EQ(FrameName(d[0].stack[0]), "libc.so.6+0x5000");
}

TEST(MissingSymbolsTest, ModulesThatLeftFramesUnnamedCountedOncePerAddress) {
  SymbolTable t = StrippedRun(0x560000000000);
  // A second stack through git+0x1f069 again (counted once) and one at an
  // address outside every module (not counted: no file would name it).
  t.AddStackNode({5, 2, 0x560000000000 + 0x1f069});
  t.AddStackNode({6, 0, 0x1234});
  const std::vector<MissingSymbols> m = FindMissingSymbols(t);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].module, "git");
  EXPECT_EQ(m[0].path, "/usr/bin/git");
  EXPECT_EQ(m[0].build_id, "ab12");
  EXPECT_EQ(m[0].frames, 2u);  // 0x1f069, 0x20000
  EXPECT_EQ(m[1].module, "libc.so.6");
  EXPECT_EQ(m[1].build_id, "");
  EXPECT_EQ(m[1].frames, 1u);  // 0x5000; 0x2a0 is named
  EXPECT_EQ(MissingSymbolsJson(m)["missing"][0],
            (nlohmann::json{
                {"module", "git"}, {"path", "/usr/bin/git"}, {"build_id", "ab12"}, {"frames", 2}}));
  EXPECT_EQ(MissingSymbolsText(m),
            "no symbols for 3 frames in: git (build-id ab12, 2 frames), libc.so.6 (1 frame); "
            "install each module's -dbgsym package (Debian) or give heapreplay --debug-dir DIR "
            "with its debug file");
  // Named, nothing is missing.
  t.AddSymbol({0x560000000000 + 0x1f069, 1, {{"cmd_main", "", 0, 0}}});
  t.AddSymbol({0x560000000000 + 0x20000, 1, {{"xmalloc", "", 0, 0}}});
  t.AddSymbol({2 * 0x560000000000 + 0x5000, 2, {{"malloc", "", 0, 0}}});
  EXPECT_TRUE(FindMissingSymbols(t).empty());
  EXPECT_EQ(MissingSymbolsJson({}), (nlohmann::json{{"missing", nlohmann::json::array()}}));
  EXPECT_EQ(MissingSymbolsText({}), "");
}

TEST(MismatchTest, FamiliesSizesUnknownAndDoubleFrees) {
  Pass p;
  Feeder f(&p.analysis);
  f.Event(Malloc(0x10, 32, 1, Api::kNewArray));
  f.Event(Free(0x10, Api::kDelete, 11));  // new[] / delete
  f.Event(Malloc(0x20, 32, 2, Api::kNew));
  f.Event(Free(0x20, Api::kFree, 12));  // new / free
  f.Event(Malloc(0x30, 32, 3, Api::kMalloc));
  f.Event(Free(0x30, Api::kDelete, 13));  // malloc / delete
  f.Event(Malloc(0x40, 32, 4, Api::kNew));
  f.Event(Free(0x40, Api::kDeleteSized, 14, 24));  // sized delete, wrong size
  f.Event(Malloc(0x50, 32, 5, Api::kNew));
  f.Event(Free(0x50, Api::kDeleteSized, 15, 32));  // right: nothing
  f.Event(Malloc(0x60, 8, 6, Api::kNew));
  f.Event({.api = Api::kRealloc, .address = 0x70, .size = 16, .old_address = 0x60, .stack = 16});
  f.Event(Free(0xdead, Api::kFree, 17));  // never allocated
  f.Event(Malloc(0x80, 48, 7));           // block 8
  f.Event(Free(0x80, Api::kFree, 18));
  f.Raw({.api = Api::kFree, .stack = 19, .block = 8});  // double free of block 8
  f.Event(Malloc(0x90, 1, 8));
  f.Event(Free(0x90));  // fine

  const std::vector<Mismatch> m = p.mismatches.Mismatches();
  EXPECT_EQ(p.mismatches.total(), 7u);
  ASSERT_EQ(m.size(), 7u);  // each once: ordered by first occurrence
  EXPECT_EQ(m[0].kind, MismatchKind::kFamily);
  EXPECT_EQ(m[0].alloc_api, Api::kNewArray);
  EXPECT_EQ(m[0].free_api, Api::kDelete);
  EXPECT_EQ(m[0].alloc_stack, 1u);
  EXPECT_EQ(m[0].free_stack, 11u);
  EXPECT_EQ(m[1].alloc_api, Api::kNew);
  EXPECT_EQ(m[1].free_api, Api::kFree);
  EXPECT_EQ(m[2].alloc_api, Api::kMalloc);
  EXPECT_EQ(m[2].free_api, Api::kDelete);
  EXPECT_EQ(m[3].kind, MismatchKind::kSize);
  EXPECT_EQ(m[3].freed_size, 24u);
  EXPECT_EQ(m[3].bytes, 32u);
  EXPECT_EQ(m[4].kind, MismatchKind::kFamily);  // realloc of new'd memory
  EXPECT_EQ(m[4].free_api, Api::kRealloc);
  EXPECT_EQ(m[4].free_stack, 16u);
  EXPECT_EQ(m[5].kind, MismatchKind::kUnknown);
  EXPECT_EQ(m[5].address, 0xdeadu);
  EXPECT_EQ(m[5].free_stack, 17u);
  EXPECT_EQ(m[6].kind, MismatchKind::kDoubleFree);
  EXPECT_EQ(m[6].alloc_stack, 7u);
  EXPECT_EQ(m[6].first_free_stack, 18u);
  EXPECT_EQ(m[6].free_stack, 19u);
  EXPECT_EQ(m[6].bytes, 48u);
}

TEST(MismatchTest, DoubleFreeAsATraceNamesIt) {
  // The trace's writer (BlockNumbers) names the released block again.
  Pass p;
  Feeder f(&p.analysis);
  f.Event(Malloc(0x500, 64, 3));
  f.Event(Free(0x500, Api::kFree, 4));
  f.Event(Free(0x500, Api::kFree, 5));
  const std::vector<Mismatch> m = p.mismatches.Mismatches();
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].kind, MismatchKind::kDoubleFree);
  EXPECT_EQ(m[0].alloc_stack, 3u);
  EXPECT_EQ(m[0].first_free_stack, 4u);
  EXPECT_EQ(m[0].free_stack, 5u);
}

TEST(MismatchTest, RepeatsAggregate) {
  Pass p;
  Feeder f(&p.analysis);
  for (int i = 0; i < 5; ++i) {
    f.Event(Malloc(0x10, 4, 1, Api::kNew));
    f.Event(Free(0x10, Api::kFree, 2));
  }
  const std::vector<Mismatch> m = p.mismatches.Mismatches();
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].count, 5u);
  EXPECT_EQ(m[0].bytes, 20u);
  EXPECT_EQ(m[0].first_seq, 2u);
}

}  // namespace
}  // namespace heaprec::analyzers
