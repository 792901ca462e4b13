// bench_report: the differences to the reference are of the program's
// allocator cost (start-up + replayed calls), paired run by run, and the
// text says how much of it is start-up.
#include "replay/bench_report.h"

#include <gtest/gtest.h>

namespace heaprec::replay {
namespace {

// A run: spawn at 0 (1 s), ready after span_ms, calls taking calls_ms; the
// round's null worker was ready after null_span_ms.
RunSample Sample(double span_ms, double calls_ms, double null_span_ms) {
  RunSample s;
  s.spawn_ns = 1'000'000'000;
  s.ready_ns = s.spawn_ns + uint64_t(span_ms * 1e6);
  s.reference_ready_span_ns = uint64_t(null_span_ms * 1e6);
  s.ready_cpu_ns = uint64_t(span_ms * 1e6);
  s.reference_ready_cpu_ns = uint64_t(null_span_ms * 1e6);
  s.wall_ns = uint64_t(calls_ms * 1e6);
  s.cpu_ns = s.wall_ns;
  return s;
}

TEST(BenchReport, DifferencesAreOfStartupPlusCallsPairedRunByRun) {
  BenchResult r;
  r.stats.ops = 1000;
  r.repeat = 3;
  r.allocators = {{AllocatorSpec{"glibc", "", "", ""}}, {AllocatorSpec{"fast", "", "", ""}}};
  const double null_span[] = {10, 14, 10};
  const double glibc_span[] = {10, 14, 11}, glibc_calls[] = {20, 30, 21};
  // Start-up 3, 2, 4 ms over the null worker; calls 2, 4, 1 ms below glibc's.
  const double fast_span[] = {13, 16, 14}, fast_calls[] = {18, 26, 20};
  for (int i = 0; i < 3; ++i) {
    r.allocators[0].runs.push_back(Sample(glibc_span[i], glibc_calls[i], null_span[i]));
    r.allocators[1].runs.push_back(Sample(fast_span[i], fast_calls[i], null_span[i]));
  }
  Summarize(&r);
  const AllocatorResult& glibc = r.allocators[0];
  const AllocatorResult& fast = r.allocators[1];
  EXPECT_NEAR(glibc.startup_ns.median, 0, 1);  // 0, 0, 1 ms
  EXPECT_NEAR(fast.startup_ns.median, 3e6, 1);
  EXPECT_NEAR(fast.startup_ns.min, 2e6, 1);
  EXPECT_NEAR(fast.wall_ns.median, 20e6, 1);               // calls alone, unchanged
  EXPECT_NEAR(fast.with_startup_wall_ns.median, 24e6, 1);  // 21, 28, 24
  // Paired (fast start-up + calls) - (glibc start-up + calls): 21 - 20,
  // 28 - 30, 24 - 22 (glibc's round 3 start-up is 1 ms) = +1, -2, +2 ms;
  // median +1 ms. Unpaired medians would give 24 - 22 = +2 ms; calls alone
  // -2 ms.
  EXPECT_EQ(fast.wall_diff.pairs, 3u);
  EXPECT_NEAR(fast.wall_diff.median, 1e-3, 1e-9);
  EXPECT_NEAR(fast.cpu_diff.median, 1e-3, 1e-9);
  EXPECT_NEAR(fast.startup_diff.median, 3e-3, 1e-9);  // 3, 2, 3 ms
  EXPECT_EQ(glibc.wall_diff.pairs, 0u);

  const nlohmann::json j = BenchJson(r);
  EXPECT_NEAR(j["allocators"][1]["startup_s"].get<double>(), 3e-3, 1e-9);
  EXPECT_NEAR(j["allocators"][1]["wall_s"].get<double>(), 20e-3, 1e-9);
  EXPECT_NEAR(j["allocators"][1]["with_startup_wall_s"].get<double>(), 24e-3, 1e-9);
  EXPECT_NEAR(j["allocators"][1]["vs_reference"]["wall_s"]["median"].get<double>(), 1e-3, 1e-9);
  EXPECT_NEAR(j["allocators"][1]["vs_reference"]["startup_s"]["median"].get<double>(), 3e-3, 1e-9);
  EXPECT_NEAR(j["allocators"][0]["startup_s"].get<double>(), 0, 1e-9);

  const std::string text = BenchText(r);
  EXPECT_NE(text.find("start-up time"), std::string::npos) << text;
  EXPECT_NE(text.find("fast +3.00 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("    wall      +1.0 ms"), std::string::npos) << text;
  EXPECT_NE(text.find(", including start-up (+3.0 ms)\n"), std::string::npos) << text;
}

// Two allocators both faster than glibc beyond noise by the same amount
// within noise: the fastest is named with the one it is tied with.
TEST(BenchReport, FastestTiedWithinNoiseSaysSo) {
  BenchResult r;
  r.stats.ops = 1000;
  r.repeat = 5;
  r.allocators = {{AllocatorSpec{"glibc", "", "", ""}},
                  {AllocatorSpec{"a", "", "", ""}},
                  {AllocatorSpec{"b", "", "", ""}}};
  const double glibc[] = {30, 31, 30, 32, 30}, a[] = {20, 21, 19, 20, 21},
               b[] = {21, 20, 20, 21, 19};
  for (int i = 0; i < 5; ++i) {
    r.allocators[0].runs.push_back(Sample(10, glibc[i], 10));
    r.allocators[1].runs.push_back(Sample(10, a[i], 10));
    r.allocators[2].runs.push_back(Sample(10, b[i], 10));
  }
  Summarize(&r);
  const nlohmann::json j = BenchJson(r);
  ASSERT_FALSE(j["fastest_beyond_noise"].is_null());
  const std::string fastest = j["fastest_beyond_noise"];
  EXPECT_EQ(j["fastest_tied_with"], (nlohmann::json{fastest == "a" ? "b" : "a"}));
  EXPECT_NE(BenchText(r).find("; tied within noise with "), std::string::npos) << BenchText(r);
}

}  // namespace
}  // namespace heaprec::replay
