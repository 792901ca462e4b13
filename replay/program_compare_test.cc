// The comparison of real runs from made-up runs: rotation of the order,
// pairing by round, failed runs left out of the pairs and reported, the
// text's and JSON's verdicts.
#include "replay/program_compare.h"

#include <gtest/gtest.h>

namespace heaprec::replay {
namespace {

TEST(ProgramCompareTest, EachRoundRotatesTheOrder) {
  EXPECT_EQ(RoundOrder(4, 0), (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(RoundOrder(4, 1), (std::vector<size_t>{1, 2, 3, 0}));
  EXPECT_EQ(RoundOrder(4, 5), (std::vector<size_t>{1, 2, 3, 0}));
  // Over n rounds each allocator runs once in each position.
  for (size_t who = 0; who < 3; ++who) {
    std::vector<int> positions(3, 0);
    for (int round = 0; round < 3; ++round) {
      const std::vector<size_t> order = RoundOrder(3, round);
      for (size_t p = 0; p < 3; ++p) positions[p] += order[p] == who;
    }
    EXPECT_EQ(positions, (std::vector<int>{1, 1, 1})) << who;
  }
}

AllocatorRuns Runs(const std::string& name, const std::vector<double>& walls, double rss_mib,
                   std::vector<int> exits = {}) {
  AllocatorRuns a;
  a.spec.name = name;
  for (size_t i = 0; i < walls.size(); ++i) {
    ProgramRun run;
    run.wall_s = walls[i];
    run.cpu_s = walls[i] * 0.9;
    run.max_rss_bytes = uint64_t(rss_mib * 1048576) + i * 4096;
    run.exit_code = i < exits.size() ? exits[i] : 0;
    a.runs.push_back(run);
  }
  return a;
}

CompareResult Made() {
  CompareResult r;
  r.command = {"./app", "x"};
  r.rounds = 6;
  // glibc second: the reference is found by name.
  r.allocators.push_back(Runs("tcmalloc", {0.80, 0.82, 0.79, 0.81, 0.80, 0.83}, 12));
  r.allocators.push_back(Runs("glibc", {1.00, 1.02, 0.99, 1.01, 1.00, 1.03}, 10));
  r.allocators.push_back(
      Runs("jemalloc", {1.01, 1.01, 1.00, 1.00, 1.01, 1.02}, 10, {0, 0, 3, 0, 0, 0}));
  r.reference = 1;
  for (int round = 0; round < r.rounds; ++round) r.orders.push_back(RoundOrder(3, round));
  SummarizeRuns(&r);
  return r;
}

TEST(ProgramCompareTest, PairsByRoundAndLeavesFailedRunsOut) {
  const CompareResult r = Made();
  const AllocatorRuns& tc = r.allocators[0];
  EXPECT_NEAR(tc.wall_diff.median, -0.20, 1e-9);
  EXPECT_NEAR(tc.wall_diff.low, -0.20, 1e-9);  // the same difference every round
  EXPECT_FALSE(tc.wall_diff.noise);
  EXPECT_NEAR(tc.rss_diff.median, 2 * 1048576, 1);
  EXPECT_EQ(tc.wall_diff.pairs, 6u);
  const AllocatorRuns& je = r.allocators[2];
  EXPECT_EQ(je.FailedRuns(), 1);
  EXPECT_EQ(je.wall_diff.pairs, 5u);  // round 3 left out
  EXPECT_TRUE(je.wall_diff.noise);
  EXPECT_EQ(r.allocators[1].wall_diff.pairs, 0u);
  EXPECT_NEAR(r.allocators[1].wall_s, 1.005, 1e-9);
  EXPECT_TRUE(r.AnyFailed());
}

TEST(ProgramCompareTest, TextNamesSavingsNoiseAndFailures) {
  const std::string text = CompareText(Made());
  EXPECT_NE(text.find("heaprec --compare-allocators: ./app x\n"), std::string::npos) << text;
  EXPECT_NE(text.find("its output went to /dev/null"), std::string::npos) << text;
  EXPECT_NE(text.find("vs glibc, round by round"), std::string::npos) << text;
  EXPECT_NE(text.find("-200.0 ms [-200.0, -200.0]  saves 200.0 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("no difference beyond noise"), std::string::npos) << text;
  EXPECT_NE(text.find("fastest beyond noise (wall): tcmalloc, saves 200.0 ms of glibc's"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("smallest beyond noise (max RSS): no allocator beats glibc"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  jemalloc, round 3: exit 3 (glibc: exit 0)"), std::string::npos) << text;
  EXPECT_NE(text.find("real program"), std::string::npos) << text;
}

// Two allocators that both beat glibc beyond noise, by the same amount
// within noise: the fastest is named with the one it is tied with.
TEST(ProgramCompareTest, FastestTiedWithinNoiseSaysSo) {
  CompareResult r;
  r.command = {"./app"};
  r.rounds = 6;
  r.allocators.push_back(Runs("glibc", {1.00, 1.02, 0.99, 1.01, 1.00, 1.03}, 10));
  r.allocators.push_back(Runs("tcmalloc", {0.80, 0.83, 0.79, 0.80, 0.81, 0.83}, 12));
  r.allocators.push_back(Runs("jemalloc", {0.81, 0.82, 0.80, 0.79, 0.80, 0.84}, 12));
  r.allocators.push_back(Runs("mimalloc", {0.90, 0.92, 0.89, 0.91, 0.90, 0.93}, 12));
  r.reference = 0;
  for (int round = 0; round < r.rounds; ++round) r.orders.push_back(RoundOrder(4, round));
  SummarizeRuns(&r);
  const nlohmann::json j = CompareJson(r);
  ASSERT_FALSE(j["fastest_beyond_noise"].is_null());
  const std::string fastest = j["fastest_beyond_noise"];
  EXPECT_TRUE(fastest == "tcmalloc" || fastest == "jemalloc") << fastest;
  EXPECT_EQ(j["fastest_tied_with"],
            (nlohmann::json{fastest == "tcmalloc" ? "jemalloc" : "tcmalloc"}));
  EXPECT_NE(CompareText(r).find("; tied within noise with "), std::string::npos) << CompareText(r);
  // Made(): tcmalloc alone beats glibc; jemalloc is slower than it beyond noise.
  EXPECT_EQ(CompareJson(Made())["fastest_tied_with"], nlohmann::json::array());
}

TEST(ProgramCompareTest, JsonShape) {
  const nlohmann::json j = CompareJson(Made());
  EXPECT_EQ(j["reference"], "glibc");
  EXPECT_EQ(j["rounds"], 6);
  EXPECT_EQ(j["program_output"], "discarded");
  EXPECT_EQ(j["fastest_beyond_noise"], "tcmalloc");
  EXPECT_EQ(j["smallest_beyond_noise"], nullptr);
  ASSERT_EQ(j["allocators"].size(), 3u);
  EXPECT_EQ(j["allocators"][1]["vs_reference"], nullptr);
  EXPECT_EQ(j["allocators"][0]["vs_reference"]["wall_s"]["beyond_noise"], true);
  EXPECT_EQ(j["allocators"][2]["failed_runs"], 1);
  EXPECT_EQ(j["allocators"][2]["exit_codes"][2], 3);
  ASSERT_EQ(j["failures"].size(), 1u);
  EXPECT_EQ(j["failures"][0]["allocator"], "jemalloc");
  EXPECT_EQ(j["failures"][0]["round"], 3);
  EXPECT_EQ(j["orders"][1], (nlohmann::json{"glibc", "jemalloc", "tcmalloc"}));
}

}  // namespace
}  // namespace heaprec::replay
