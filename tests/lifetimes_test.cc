// heaprec on tests/programs/lifetimes.c, then heapreplay --hot --json: each
// site's block lifetimes (analyzers/lifetimes.h) as the program made them:
// allocations in between exactly, times about, and the share of blocks
// freed by another thread; and the total lifetime per site equals what
// --export dhat writes as DHAT's tl.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/e2e_util.h"

namespace heaprec::tests {
namespace {

constexpr uint64_t kMs = 1000 * 1000;

class LifetimesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const Recording rec = Record("lifetimes", {Runfile("tests/lifetimes")});
    ASSERT_EQ(rec.run.exit_code, 0) << rec.run.err;
    ASSERT_EQ(rec.traces.size(), 1u);
    trace_ = new std::string(rec.traces[0]);
    const ProcessResult r = RunProgram({Runfile("replay/heapreplay"), "--hot", "--json", *trace_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    sites_ = new std::map<std::string, nlohmann::json>;
    for (const nlohmann::json& s : j["hot"]["sites"]) {
      (*sites_)[s["stack"][0]["function"].get<std::string>()] = s["lifetimes"];
    }
    all_ = new nlohmann::json(j["lifetimes"]);
  }
  static const nlohmann::json& Site(const std::string& function) {
    static const nlohmann::json kNone;
    const auto it = sites_->find(function);
    EXPECT_NE(it, sites_->end()) << function;
    return it == sites_->end() ? kNone : it->second;
  }
  static std::string* trace_;
  static std::map<std::string, nlohmann::json>* sites_;
  static nlohmann::json* all_;
};
std::string* LifetimesTest::trace_ = nullptr;
std::map<std::string, nlohmann::json>* LifetimesTest::sites_ = nullptr;
nlohmann::json* LifetimesTest::all_ = nullptr;

TEST_F(LifetimesTest, AllocationsInBetweenAreExact) {
  const nlohmann::json& immediate = Site("immediate");
  EXPECT_EQ(immediate["freed"], 100);
  EXPECT_EQ(immediate["live_at_end"], 0);
  EXPECT_EQ(immediate["allocations_between"]["log2_buckets"], nlohmann::json::parse("[[0, 100]]"));
  EXPECT_EQ(immediate["allocations_between"]["p99"], 0);

  const nlohmann::json& spaced = Site("spaced");
  EXPECT_EQ(spaced["freed"], 50);
  EXPECT_EQ(spaced["allocations_between"]["mean"], 7.0);
  EXPECT_EQ(spaced["allocations_between"]["log2_buckets"], nlohmann::json::parse("[[7, 50]]"));

  // 0..6 after each, 50 times each: buckets 0 | 1 | 2-3 | 4-7.
  const nlohmann::json& filler = Site("filler");
  EXPECT_EQ(filler["freed"], 350);
  EXPECT_EQ(filler["allocations_between"]["mean"], 3.0);
  EXPECT_EQ(filler["allocations_between"]["log2_buckets"],
            nlohmann::json::parse("[[0, 50], [1, 50], [3, 100], [7, 150]]"));
  EXPECT_EQ(filler["allocations_between"]["p50"], 3);  // 175th of 350: in 2-3
  EXPECT_EQ(filler["allocations_between"]["p90"], 7);
  EXPECT_EQ(filler["allocations_between"]["max"], 7);

  // The worker frees 39..20 blocks after its own, main the rest: 0..39.
  const nlohmann::json& half = Site("half");
  EXPECT_EQ(half["allocations_between"]["mean"], 19.5);
}

TEST_F(LifetimesTest, TimesAreAboutWhatTheProgramWaited) {
  const nlohmann::json& slept = Site("slept");
  EXPECT_EQ(slept["freed"], 5);
  // 30 ms each; the trace's times are milliseconds of a coarse clock.
  EXPECT_GE(slept["time_ns"]["mean"].get<double>(), 25.0 * kMs);
  EXPECT_LT(slept["time_ns"]["mean"].get<double>(), 1000.0 * kMs);
  EXPECT_GE(slept["time_ns"]["p50"].get<uint64_t>(), 25 * kMs);
  // Freed at once: within a millisecond or two.
  EXPECT_LE(Site("immediate")["time_ns"]["p99"].get<uint64_t>(), 4 * kMs);
}

TEST_F(LifetimesTest, BlocksFreedByAnotherThread) {
  EXPECT_EQ(Site("handed")["freed_by_other_thread"], 40);
  EXPECT_EQ(Site("handed")["other_thread_share"], 1.0);
  EXPECT_EQ(Site("half")["freed_by_other_thread"], 20);
  EXPECT_EQ(Site("half")["other_thread_share"], 0.5);
  EXPECT_EQ(Site("spaced")["freed_by_other_thread"], 0);
  // The whole trace's: only those 60 (the program's other blocks are freed
  // where they were made).
  EXPECT_EQ((*all_)["freed_by_other_thread"], 60);
}

// DHAT's tl (total lifetime, µs) of each site whose blocks were all freed
// is the sum of their lifetimes here.
TEST_F(LifetimesTest, TotalLifetimeAgreesWithTheDhatExport) {
  const std::string out = MakeTempDir("lifetimes_dhat") + "/dhat.json";
  const ProcessResult r =
      RunProgram({Runfile("replay/heapreplay"), "--export", "dhat", out, *trace_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json d = nlohmann::json::parse(ReadTextFile(out));
  int checked = 0;
  for (const char* function : {"immediate", "spaced", "filler", "slept", "handed", "half"}) {
    const nlohmann::json& mine = Site(function);
    ASSERT_EQ(mine["live_at_end"], 0) << function;
    for (const nlohmann::json& pp : d["pps"]) {
      const std::string frame = d["ftbl"][pp["fs"][0].get<size_t>()];
      if (frame.find(std::string(": ") + function + " (") == std::string::npos) continue;
      EXPECT_EQ(pp["tbk"], mine["freed"]) << function;
      EXPECT_EQ(pp["tl"].get<uint64_t>(), mine["total_time_ns"].get<uint64_t>() / 1000) << function;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 6);
}

}  // namespace
}  // namespace heaprec::tests
