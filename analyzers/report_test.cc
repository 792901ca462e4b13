// The text and JSON reports of a hand-made trace whose every number is known:
// the whole text against a golden file, and the JSON against docs/DESIGN.md's
// contract (names, types, meanings).
//
// The golden file is analyzers/testdata/report_text.txt. After a deliberate
// change of the text format, regenerate it and review the diff:
//   HEAPREC_UPDATE_GOLDEN=1 bazel run //analyzers:report_test
//   git diff analyzers/testdata/
#include "analyzers/report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analyzers/golden_file.h"
#include "analyzers/leak_report.h"
#include "analyzers/test_events.h"

namespace heaprec::analyzers {
namespace {

using format::Api;
using format::Event;

// app: main -> load (1 KiB x 4, leaked), main -> parse -> token (16 B x 50,
// temporaries), main -> cache (new[] 3000 B, freed by delete: a mismatch).
class ReportTest : public testing::Test {
 protected:
  ReportTest() {
    for (Analyzer* a : std::initializer_list<Analyzer*>{&summary_, &peak_, &hot_, &histogram_,
                                                        &timeline_, &mismatches_}) {
      analysis_.Add(a);
    }
    analysis_.OnProcess({.program = "/opt/app/bin/app", .args = {"app", "--fast"}, .pid = 4242});
    analysis_.OnModule({.id = 1,
                        .path = "/opt/app/bin/app",
                        .load_address = 0x400000,
                        .ranges = {{0x400000, 0x500000, 0}}});
    analysis_.OnStackNode({1, 0, 0x400100});  // main
    analysis_.OnStackNode({2, 1, 0x400200});  // main -> load
    analysis_.OnStackNode({3, 1, 0x400300});  // main -> parse
    analysis_.OnStackNode({4, 3, 0x400400});  // main -> parse -> token (inlined)
    analysis_.OnStackNode({5, 1, 0x400500});  // main -> cache
    analysis_.OnSymbol({0x400100, 1, {{"main", "app.cc", 50}}});
    analysis_.OnSymbol({0x400200, 1, {{"load(int)", "load.cc", 12}}});
    analysis_.OnSymbol({0x400300, 1, {{"parse(char const*)", "parse.cc", 30}}});
    analysis_.OnSymbol(
        {0x400400, 1, {{"Token::Token()", "token.h", 7}, {"parse_token()", "parse.cc", 41}}});
    analysis_.OnSymbol({0x400500, 1, {{"Cache::Cache()", "cache.cc", 9}}});

    uint64_t address = 0x10000;
    for (int i = 0; i < 4; ++i)
      Add({.api = Api::kMalloc, .address = address += 0x1000, .size = 1024, .stack = 2});
    feeder_.Marker("loaded");
    for (int i = 0; i < 50; ++i) {
      Add({.api = Api::kNew, .address = 0x90000, .size = 16, .stack = 4});
      Add({.api = Api::kDelete, .address = 0x90000});
    }
    Add({.api = Api::kNewArray, .address = 0xa0000, .size = 3000, .stack = 5});
    Add({.api = Api::kDelete, .address = 0xa0000});
    // The scan at the end: the four loads (blocks 1-4) are one of each kind,
    // the reachable one held by a global.
    format::LeakScan scan;
    scan.reason = format::LeakScan::Reason::kExit;
    scan.pause_ns = 2000000;
    scan.roots = {{1, format::LeakRootKind::kGlobal, "g_loaded [app]", 1, 0, 0x480000, 8}};
    scan.blocks = {1, 2, 3, 4};
    using K = format::LeakKind;
    for (const K k : {K::kDefinite, K::kIndirect, K::kPossible, K::kReachable}) {
      scan.kinds.push_back(format::LeakScan::PackKind(k, format::LeakHeuristic::kNone));
    }
    scan.block_roots = {0, 0, 0, 1};
    feeder_.LeakScan(scan);
  }

  void Add(const Event& e) { feeder_.Event(e); }

  Report MakeReport() {
    Report r;
    r.trace = {"app.zst", format::FormatVersion{2, 0}, false};
    r.analysis = &analysis_;
    r.summary = &summary_;
    r.leak_report = BuildLeakReport(analysis_.heap(), analysis_.LeakScanNow(),
                                    analysis_.LeakScanMissing(), analysis_.symbols(), nullptr);
    r.leaks = ShownSites(*r.leak_report, DefaultLeakKinds());
    r.peak = &peak_;
    r.hot = &hot_;
    r.histogram = &histogram_;
    r.timeline = &timeline_;
    r.mismatches = &mismatches_;
    return r;
  }

  static ReportOptions All() {
    ReportOptions o;
    o.leaks = o.peak = o.temporaries = o.hot = o.histogram = o.timeline = o.mismatches = true;
    return o;
  }

  Analysis analysis_;
  SummaryAnalyzer summary_;
  PeakAnalyzer peak_;
  HotAnalyzer hot_;
  HistogramAnalyzer histogram_;
  TimelineAnalyzer timeline_;
  MismatchAnalyzer mismatches_;
  EventFeeder feeder_{&analysis_};
};

TEST_F(ReportTest, TextMatchesGoldenFile) {
  ExpectGolden("report_text.txt", TextReport(MakeReport(), All()));
}

TEST_F(ReportTest, OverviewMatchesGoldenFile) {
  ReportOptions o;
  o.overview = true;
  ExpectGolden("report_overview.txt", TextReport(MakeReport(), o));
}

TEST_F(ReportTest, JsonFollowsTheContract) {
  const nlohmann::json j = nlohmann::json::parse(JsonReport(MakeReport(), All()));
  // trace
  EXPECT_EQ(j["trace"]["path"], "app.zst");
  EXPECT_EQ(j["trace"]["program"], "/opt/app/bin/app");
  EXPECT_EQ(j["trace"]["pid"], 4242);
  EXPECT_EQ(j["trace"]["format_version"], 2);
  EXPECT_EQ(j["trace"]["truncated"], false);
  // summary: every name of the contract, with its meaning.
  const auto& s = j["summary"];
  EXPECT_EQ(s["allocations"], 55);
  EXPECT_EQ(s["frees"], 51);
  EXPECT_EQ(s["bytes_allocated"], 4096 + 800 + 3000);
  EXPECT_EQ(s["peak_bytes"], 4096 + 3000);
  EXPECT_EQ(s["leaked_bytes"], 4096);
  EXPECT_EQ(s["leaked_blocks"], 4);
  EXPECT_EQ(s["temporaries"], 51);  // the 50 tokens and the cache
  EXPECT_EQ(s["duration_ns"], 106000000);
  for (const char* key : {"allocations", "frees", "bytes_allocated", "peak_bytes", "leaked_bytes",
                          "leaked_blocks", "temporaries", "duration_ns"}) {
    EXPECT_TRUE(s[key].is_number_unsigned()) << key;
  }
  // SITE and FRAME shapes everywhere.
  auto check_sites = [](const nlohmann::json& sites) {
    for (const auto& site : sites) {
      EXPECT_TRUE(site["bytes"].is_number_integer());
      EXPECT_TRUE(site["count"].is_number_integer());
      ASSERT_TRUE(site["stack"].is_array());
      for (const auto& f : site["stack"]) {
        EXPECT_TRUE(f["function"].is_string());
        EXPECT_TRUE(f["file"].is_string() || f["file"].is_null());
        EXPECT_TRUE(f["line"].is_number_integer() || f["line"].is_null());
        EXPECT_TRUE(f["module"].is_string());
        EXPECT_EQ(f["address"].get<std::string>().rfind("0x", 0), 0u);
        EXPECT_TRUE(f["inlined"].is_boolean());
      }
    }
  };
  EXPECT_EQ(j["leaks"]["bytes"], 4096);
  EXPECT_EQ(j["leaks"]["blocks"], 4);
  // The kinds of the scan, every one with its totals; the sites of the
  // default kinds (definite, possible), each with its kind.
  for (const char* kind :
       {"definitely_lost", "indirectly_lost", "possibly_lost", "still_reachable"}) {
    EXPECT_EQ(j["leaks"]["kinds"][kind]["bytes"], 1024) << kind;
    EXPECT_EQ(j["leaks"]["kinds"][kind]["blocks"], 1) << kind;
  }
  EXPECT_EQ(j["leaks"]["kinds"]["suppressed"]["bytes"], 0);
  ASSERT_EQ(j["leaks"]["sites"].size(), 2u);
  EXPECT_EQ(j["leaks"]["sites"][0]["kind"], "definitely_lost");
  EXPECT_EQ(j["leaks"]["sites"][1]["kind"], "possibly_lost");
  EXPECT_EQ(j["leaks"]["sites"][0]["stack"][0]["function"], "load(int)");
  EXPECT_EQ(j["leaks"]["sites"][0]["stack"][1]["function"], "main");
  EXPECT_EQ(j["leaks"]["scan"]["reason"], "exit");
  check_sites(j["leaks"]["sites"]);
  EXPECT_EQ(j["peak"]["bytes"], 7096);
  EXPECT_EQ(j["peak"]["time_ns"], 105000000);
  ASSERT_EQ(j["peak"]["sites"].size(), 2u);
  EXPECT_EQ(j["peak"]["sites"][0]["bytes"], 4096);  // by bytes, largest first
  EXPECT_EQ(j["peak"]["sites"][1]["stack"][0]["function"], "Cache::Cache()");
  check_sites(j["peak"]["sites"]);
  EXPECT_EQ(j["temporaries"]["count"], 51);
  ASSERT_EQ(j["temporaries"]["sites"].size(), 2u);
  const auto& token = j["temporaries"]["sites"][0];
  EXPECT_EQ(token["count"], 50);
  EXPECT_EQ(token["stack"][0]["function"], "Token::Token()");
  EXPECT_EQ(token["stack"][0]["inlined"], true);
  EXPECT_EQ(token["stack"][0]["file"], "token.h");
  EXPECT_EQ(token["stack"][1]["function"], "parse_token()");
  EXPECT_EQ(token["stack"][1]["inlined"], false);
  check_sites(j["temporaries"]["sites"]);
  ASSERT_EQ(j["hot"]["sites"].size(), 3u);
  EXPECT_EQ(j["hot"]["sites"][0]["count"], 50);  // by count, largest first
  check_sites(j["hot"]["sites"]);
  EXPECT_EQ(j["mismatches"]["count"], 1);
  EXPECT_EQ(j["mismatches"]["items"][0]["alloc_function"], "operator new[]");
  EXPECT_EQ(j["markers"][0]["label"], "loaded");
  EXPECT_EQ(j["histogram"]["buckets"].size(), 3u);
  EXPECT_EQ(j["timeline"]["points"].size(), 106u);
}

// heapreplay adds "bench" to JsonReportValue's object and writes it once,
// its lists of sites one site at a time: the text nlohmann's dump(2) gives
// for the whole value, byte for byte.
TEST_F(ReportTest, JsonValuePrintsAsTheReport) {
  const std::string text = JsonReport(MakeReport(), All());
  EXPECT_EQ(JsonReportText(JsonReportValue(MakeReport(), All())), text);
  EXPECT_EQ(nlohmann::json::parse(text).dump(2) + "\n", text);
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.rfind("{\n  \"", 0), 0u);  // indented by 2
}

TEST_F(ReportTest, JsonHasOnlyTheSummaryWithoutAnalyses) {
  ReportOptions o;
  o.overview = true;
  const nlohmann::json j = nlohmann::json::parse(JsonReport(MakeReport(), o));
  for (const char* key : {"leaks", "peak", "temporaries", "hot", "histogram", "mismatches"}) {
    EXPECT_FALSE(j.contains(key)) << key;
  }
  EXPECT_TRUE(j.contains("summary"));
}

}  // namespace
}  // namespace heaprec::analyzers
