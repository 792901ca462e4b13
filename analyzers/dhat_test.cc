// DhatAnalyzer and DhatJson over events whose answers are known: totals,
// lifetimes (blocks still live count to the last event), the most live at
// once, at the peak and at the end, and the file's fields.
#include "analyzers/dhat.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analyzers/analysis.h"
#include "analyzers/dhat_json.h"
#include "analyzers/test_events.h"

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

}  // namespace
}  // namespace heaprec::analyzers
