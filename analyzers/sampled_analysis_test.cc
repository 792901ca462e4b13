// A sampled trace's analysis (heaprec --sample-rate): LiveHeap and the
// analyzers count each recorded block as the blocks and bytes its weight
// says, consistently when it is made and released, so the live heap returns
// to zero; an exact trace's numbers are untouched.
#include <gtest/gtest.h>

#include <cmath>

#include "analyzers/analysis.h"
#include "analyzers/hot.h"
#include "analyzers/leaks.h"
#include "analyzers/peak.h"
#include "analyzers/summary.h"
#include "analyzers/test_events.h"
#include "format/sampling.h"

namespace heaprec::analyzers {
namespace {

using format::Api;
using format::Event;

constexpr uint64_t kRate = 4096;

// Events as a reader of a trace with this rate delivers them.
class SampledFeeder {
 public:
  SampledFeeder(Analysis* a, uint64_t rate) : feeder_(a), rate_(rate) {
    format::ProcessInfo p;
    p.sample_rate = rate;
    a->OnProcess(p);
  }
  void Malloc(uint64_t address, uint64_t size, uint32_t stack) {
    Event e{.api = Api::kMalloc, .address = address, .size = size, .stack = stack};
    e.weight = format::SampleWeight(size, rate_);
    feeder_.Event(e);
  }
  void Free(uint64_t address) { feeder_.Event({.api = Api::kFree, .address = address}); }

 private:
  EventFeeder feeder_;
  uint64_t rate_;
};

TEST(EstimateTest, ExactIsSizeAndOne) {
  const Estimate e = EstimateOf(123, 1.0, 77);
  EXPECT_EQ(e.bytes, 123u);
  EXPECT_EQ(e.count, 1u);
}

TEST(EstimateTest, CountsRoundToNeighboursAndStayUnbiased) {
  double sum = 0;
  for (uint64_t block = 1; block <= 100000; ++block) {
    const Estimate e = EstimateOf(10, 3.25, block);
    ASSERT_TRUE(e.count == 3 || e.count == 4) << e.count;
    ASSERT_EQ(e.bytes, 33u);  // 32.5 rounds away from zero
    sum += static_cast<double>(e.count);
  }
  // Mean 3.25; the rounding's standard error over 1e5 blocks is 0.0014.
  EXPECT_NEAR(sum / 100000, 3.25, 0.01);
}

TEST(SampledAnalysisTest, BlocksCountWithTheirWeight) {
  Analysis a;
  SummaryAnalyzer summary;
  PeakAnalyzer peak;
  HotAnalyzer hot;
  a.Add(&summary);
  a.Add(&peak);
  a.Add(&hot);
  SampledFeeder f(&a, kRate);
  const double w100 = format::SampleWeight(100, kRate);  // about 41.5
  const auto bytes100 = static_cast<uint64_t>(std::llround(100 * w100));
  // 1000 blocks of 100 bytes on stack 1 stay; 500 of 8192 on stack 2 come
  // and go.
  for (uint64_t i = 0; i < 1000; ++i) f.Malloc(0x10000 + 16 * i, 100, 1);
  for (uint64_t i = 0; i < 500; ++i) f.Malloc(0x100000 + 8192 * i, 8192, 2);
  const uint64_t bytes8192 = std::llround(8192 * format::SampleWeight(8192, kRate));
  EXPECT_EQ(a.heap().live_bytes(), 1000 * bytes100 + 500 * bytes8192);
  for (uint64_t i = 0; i < 500; ++i) f.Free(0x100000 + 8192 * i);
  EXPECT_EQ(a.heap().live_bytes(), 1000 * bytes100);
  EXPECT_NEAR(static_cast<double>(a.heap().live_blocks()), 1000 * w100, 100);

  const std::vector<Site> leaks = LeakSites(a.heap());
  ASSERT_EQ(leaks.size(), 1u);
  EXPECT_EQ(leaks[0].stack, 1u);
  EXPECT_EQ(leaks[0].bytes, 1000 * bytes100);
  EXPECT_EQ(leaks[0].count, a.heap().live_blocks());

  EXPECT_EQ(peak.peak_bytes(), 1000 * bytes100 + 500 * bytes8192);
  EXPECT_EQ(summary.bytes_allocated(), 1000 * bytes100 + 500 * bytes8192);
  EXPECT_NEAR(static_cast<double>(summary.allocations()),
              1000 * w100 + 500 * format::SampleWeight(8192, kRate), 100);
  const std::vector<Site> sites = hot.HotSites();
  ASSERT_EQ(sites.size(), 2u);
  uint64_t hot_bytes = 0;
  for (const Site& s : sites) hot_bytes += s.bytes;
  EXPECT_EQ(hot_bytes, summary.bytes_allocated());
}

TEST(SampledAnalysisTest, ExactTraceUnchanged) {
  Analysis a;
  SummaryAnalyzer summary;
  a.Add(&summary);
  SampledFeeder f(&a, 0);
  for (uint64_t i = 0; i < 10; ++i) f.Malloc(0x10000 + 16 * i, 100, 1);
  f.Free(0x10000);
  EXPECT_FALSE(a.heap().sampled());
  EXPECT_EQ(a.heap().live_bytes(), 900u);
  EXPECT_EQ(a.heap().live_blocks(), 9u);
  EXPECT_EQ(summary.allocations(), 10u);
  EXPECT_EQ(summary.frees(), 1u);
}

}  // namespace
}  // namespace heaprec::analyzers
