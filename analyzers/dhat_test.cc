// DhatAnalyzer and DhatJson over events whose answers are known: totals,
// lifetimes (blocks still live count to the last event), the most live at
// once, at the peak and at the end, and the file's fields.
#include "analyzers/dhat.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "analyzers/analysis.h"
#include "analyzers/dhat_json.h"
#include "analyzers/test_events.h"
#include "analyzers/test_symbols.h"
#include "analyzers/valgrind_frames.h"

namespace heaprec::analyzers {
namespace {

format::Event Malloc(uint64_t address, uint64_t size, uint32_t stack) {
  return {.api = format::Api::kMalloc, .address = address, .size = size, .stack = stack};
}
format::Event Free(uint64_t address) { return {.api = format::Api::kFree, .address = address}; }

TEST(DhatTest, PerSiteNumbers) {
  Analysis analysis;
  PeakAnalyzer peak;
  DhatAnalyzer dhat(&peak);
  analysis.Add(&peak);
  analysis.Add(&dhat);
  EventFeeder f(&analysis);       // event n at n ms
  f.Event(Malloc(0x10, 100, 1));  // 1: stack 1 holds 100
  f.Event(Malloc(0x20, 100, 1));  // 2: 200 (its most)
  f.Event(Free(0x10));            // 3: 100; lived 2 ms
  f.Event(Malloc(0x30, 500, 2));  // 4: the peak, 600
  f.Event(Free(0x30));            // 5: lived 1 ms
  f.Event(Malloc(0x40, 10, 2));   // 6: lives to the end, 0 ms
  const std::vector<DhatSite> sites = dhat.Sites();
  ASSERT_EQ(sites.size(), 2u);
  const DhatSite& a = sites[0];
  EXPECT_EQ(a.stack, 1u);
  EXPECT_EQ(a.total_bytes, 200u);
  EXPECT_EQ(a.total_blocks, 2u);
  EXPECT_EQ(a.total_lifetime_ns, 2000000u + 4000000u);  // 1->3, and 2->6 (the end)
  EXPECT_EQ(a.max_bytes, 200u);
  EXPECT_EQ(a.max_blocks, 2u);
  EXPECT_EQ(a.peak_bytes, 100u);
  EXPECT_EQ(a.end_bytes, 100u);
  EXPECT_EQ(a.end_blocks, 1u);
  const DhatSite& b = sites[1];
  EXPECT_EQ(b.total_bytes, 510u);
  EXPECT_EQ(b.total_lifetime_ns, 1000000u);
  EXPECT_EQ(b.max_bytes, 500u);
  EXPECT_EQ(b.peak_bytes, 500u);
  EXPECT_EQ(b.end_bytes, 10u);
  EXPECT_EQ(dhat.peak_ns(), 4000000u);
  EXPECT_EQ(dhat.end_ns(), 6000000u);

  SymbolTable symbols;  // no stacks: both points have no frames
  const nlohmann::json j =
      nlohmann::json::parse(DhatJson({"prog", 7, dhat.end_ns(), dhat.peak_ns()}, sites, symbols));
  EXPECT_EQ(j["dhatFileVersion"], 2);
  EXPECT_EQ(j["mode"], "heap");
  EXPECT_EQ(j["bklt"], true);
  EXPECT_EQ(j["bkacc"], false);
  EXPECT_EQ(j["te"], 6000);
  EXPECT_EQ(j["tg"], 4000);
  EXPECT_EQ(j["ftbl"][0], "[root]");
  // Frames that read the same are one program point (the viewer rejects two).
  ASSERT_EQ(j["pps"].size(), 1u);
  EXPECT_EQ(j["pps"][0]["tb"], 710);
  EXPECT_EQ(j["pps"][0]["tl"], 7000);
  EXPECT_EQ(j["pps"][0]["gb"], 600);
  EXPECT_FALSE(j["pps"][0].contains("rb"));
}

// DhatJson names each return address's frames once; its frame table and
// program points must be those naming every site's frames (symbols.Frames)
// gives: texts in the order first met, sites whose frames read the same
// merged into one point.
TEST(DhatTest, FrameTableAndPointsAsNamingEachSiteWhole) {
  TestSymbols s;
  s.AddModule(1, "/opt/app", 0x400000, 0x500000);
  const std::vector<uint64_t> addresses = {0x400100, 0x400200, 0x400300, 0x400400, 0x400500};
  s.AddSymbol(0x400100, 1, {{"main", "app.cc", 10}});
  s.AddSymbol(0x400200, 1, {{"parse", "app.cc", 20}});
  s.AddSymbol(0x400300, 1, {{"push", "vec.h", 5}, {"grow", "app.cc", 30}});  // inlined
  s.AddSymbol(0x400400, 1, {});                                              // no name
  std::mt19937_64 rng(7);
  std::vector<DhatSite> sites;
  for (int i = 0; i < 200; ++i) {
    DhatSite site;
    site.stack = rng() % 15 == 0 ? 0 : s.RandomStack(rng, addresses, 4);
    site.total_bytes = 1 + rng() % 100;
    site.total_blocks = 1;
    sites.push_back(site);
  }
  std::vector<std::string> ftbl = {"[root]"};
  std::map<std::vector<int>, size_t> point_of;
  std::vector<std::pair<std::vector<int>, uint64_t>> points;  // frames, total bytes
  for (const DhatSite& site : sites) {
    std::vector<int> fs;
    for (const Frame& f : s.table().Frames(site.stack)) {
      const std::string text = ValgrindFrameText(f);
      const auto at = std::find(ftbl.begin(), ftbl.end(), text);
      fs.push_back(static_cast<int>(at - ftbl.begin()));
      if (at == ftbl.end()) ftbl.push_back(text);
    }
    const auto [it, added] = point_of.try_emplace(fs, points.size());
    if (added) points.push_back({fs, 0});
    points[it->second].second += site.total_bytes;
  }
  const nlohmann::json j = nlohmann::json::parse(DhatJson({"prog", 7, 10, 5}, sites, s.table()));
  EXPECT_EQ(j["ftbl"], nlohmann::json(ftbl));
  ASSERT_EQ(j["pps"].size(), points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(j["pps"][i]["fs"], nlohmann::json(points[i].first)) << i;
    EXPECT_EQ(j["pps"][i]["tb"], points[i].second) << i;
  }
}

}  // namespace
}  // namespace heaprec::analyzers
