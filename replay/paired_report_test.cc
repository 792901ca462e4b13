// A paired difference in words and JSON: the saving or cost named when the
// interval excludes zero, "no difference beyond noise" when it does not.
#include "replay/paired_report.h"

#include <gtest/gtest.h>

namespace heaprec::replay {
namespace {

base::PairedDifference Diff(double median, double low, double high, size_t pairs = 10) {
  base::PairedDifference d;
  d.pairs = pairs;
  d.median = d.mean = median;
  d.low = low;
  d.high = high;
  d.noise = pairs < 2 || (low <= 0 && high >= 0);
  return d;
}

TEST(PairedReportTest, SavingCostAndNoiseInWords) {
  EXPECT_EQ(DifferenceText(Diff(-0.0123, -0.014, -0.0101), Unit::kSeconds),
            "-12.3 ms [-14.0, -10.1]  saves 12.3 ms");
  EXPECT_EQ(DifferenceText(Diff(1.5, 1.2, 2.0), Unit::kSeconds),
            "+1.500 s [+1.200, +2.000]  costs 1.500 s");
  EXPECT_EQ(DifferenceText(Diff(0.0004, -0.001, 0.002), Unit::kSeconds),
            "+0.4 ms [-1.0, +2.0]  no difference beyond noise");
  EXPECT_EQ(DifferenceText(Diff(1.25 * 1048576, 1048576, 1.5 * 1048576), Unit::kBytes),
            "+1.25 MiB [+1.00, +1.50]  costs 1.25 MiB");
  EXPECT_EQ(DifferenceText(Diff(-2048, -4096, -1024), Unit::kBytes),
            "-2.0 KiB [-4.0, -1.0]  saves 2.0 KiB");
  EXPECT_EQ(DifferenceText(Diff(0.0004, 0.0004, 0.0004, 1), Unit::kSeconds),
            "+0.4 ms (one run: no interval)");
  EXPECT_EQ(DifferenceText(base::PairedDifference{}, Unit::kSeconds), "no pair of runs to compare");
}

TEST(PairedReportTest, JsonSaysWhetherBeyondNoise) {
  const nlohmann::json saved = DifferenceJson(Diff(-0.5, -0.6, -0.4));
  EXPECT_EQ(saved["median"], -0.5);
  EXPECT_EQ(saved["low"], -0.6);
  EXPECT_EQ(saved["high"], -0.4);
  EXPECT_EQ(saved["pairs"], 10);
  EXPECT_EQ(saved["beyond_noise"], true);
  EXPECT_EQ(DifferenceJson(Diff(0.1, -0.1, 0.2))["beyond_noise"], false);
  EXPECT_EQ(DifferenceJson(Diff(0.1, 0.1, 0.1, 1))["beyond_noise"], false);
  const nlohmann::json method = DifferenceMethodJson();
  EXPECT_EQ(method["confidence"], 0.9);
  EXPECT_EQ(method["resamples"], 2000);
}

TEST(PairedReportTest, BestIsTheLowestSavingBeyondNoise) {
  EXPECT_EQ(BestBeyondNoise({Diff(-1, -2, 0.5), Diff(-0.5, -0.6, -0.4), Diff(-0.8, -0.9, -0.7)}),
            2);
  // A cost beyond noise, or a saving within it, is never best.
  EXPECT_EQ(BestBeyondNoise({Diff(1, 0.5, 2), Diff(-1, -2, 0.5), base::PairedDifference{}}), -1);
}

TEST(PairedReportTest, WrapsBetweenWords) {
  EXPECT_EQ(WrapText("aaa bbb ccc dddd", 8), "aaa bbb\nccc dddd\n");
  EXPECT_EQ(WrapText("averyveryverylongword x", 8), "averyveryverylongword\nx\n");
}

}  // namespace
}  // namespace heaprec::replay
