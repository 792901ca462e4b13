// The sampler's math: -ln, the mean gap between samples, the chance that an
// allocation is sampled, and that the weights (format/sampling.h) give back
// the bytes and calls allocated. Each case runs on a fresh thread (the
// countdown is per thread) with a fixed seed: the same draws every run.
// Tolerances are about 5 standard errors or more of the quantity checked, so
// that they would hold for almost any seed too.
#include "recorder/preload/sampler.h"

#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

#include "format/sampling.h"
#include "gtest/gtest.h"

namespace heaprec::recorder::preload {
namespace {

template <typename F>
void OnFreshThread(F f) {
  std::thread t(f);
  t.join();
}

TEST(SamplerTest, NegLogMatchesLibm) {
  for (double u : {1.0, 0.999999, 0.75, 0.5, 0.3, 0.1, 1e-3, 1e-9, 0x1p-53}) {
    EXPECT_NEAR(NegLog(u), -std::log(u), 1e-9 * (1 - std::log(u))) << u;
  }
  for (int i = 1; i < 1000; ++i) {
    const double u = i / 1000.0;
    EXPECT_NEAR(NegLog(u), -std::log(u), 1e-9) << u;
  }
}

TEST(SamplerTest, CountdownIsExponentialWithMeanRate) {
  uint64_t state = 12345;
  constexpr int kDraws = 400000;
  constexpr double kRate = 65536;
  double sum = 0;
  int below_mean = 0;
  for (int i = 0; i < kDraws; ++i) {
    const uint64_t d = DrawCountdown(&state, static_cast<uint64_t>(kRate));
    ASSERT_GE(d, 1u);
    sum += static_cast<double>(d);
    if (d < kRate) ++below_mean;
  }
  // Mean: standard error rate / sqrt(n) = 0.16%.
  EXPECT_NEAR(sum / kDraws, kRate, 0.01 * kRate);
  // P(X < mean) = 1 - 1/e for an exponential; standard error 0.08%.
  EXPECT_NEAR(static_cast<double>(below_mean) / kDraws, 1 - std::exp(-1.0), 0.005);
}

TEST(SamplerTest, ExactModeRecordsEverything) {
  SetSampleRate(0, 0);
  OnFreshThread([] {
    for (size_t s : {0, 1, 16, 1 << 20}) EXPECT_TRUE(SampleAllocation(s));
  });
}

// An allocation of s bytes is sampled with probability 1 - exp(-s / rate).
TEST(SamplerTest, ChanceOfASampleFollowsTheSize) {
  constexpr uint64_t kRate = 4096;
  SetSampleRate(kRate, 42);
  for (size_t size : {64, 512, 4096, 16384}) {
    OnFreshThread([size] {
      constexpr int kCalls = 200000;
      int sampled = 0;
      for (int i = 0; i < kCalls; ++i) sampled += SampleAllocation(size) ? 1 : 0;
      const double p = 1 - std::exp(-static_cast<double>(size) / kRate);
      const double se = std::sqrt(p * (1 - p) / kCalls);
      EXPECT_NEAR(static_cast<double>(sampled) / kCalls, p, 6 * se + 1e-4) << size;
    });
  }
  SetSampleRate(0, 0);
}

// Mixed sizes: the weighted sample estimates the bytes and calls of each size.
TEST(SamplerTest, WeightsEstimateBytesAndCalls) {
  constexpr uint64_t kRate = 4096;
  SetSampleRate(kRate, 7);
  OnFreshThread([] {
    const std::vector<size_t> sizes = {16, 100, 1000, 5000, 40000};
    constexpr int kRounds = 100000;
    std::vector<double> calls(sizes.size()), bytes(sizes.size());
    for (int r = 0; r < kRounds; ++r) {
      for (size_t i = 0; i < sizes.size(); ++i) {
        if (!SampleAllocation(sizes[i])) continue;
        const double w = format::SampleWeight(sizes[i], kRate);
        calls[i] += w;
        bytes[i] += w * static_cast<double>(sizes[i]);
      }
    }
    double total = 0, estimated = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      const double p = 1 - std::exp(-static_cast<double>(sizes[i]) / kRate);
      // The estimate of n calls has standard error sqrt(n (1 - p) / p).
      const double se = std::sqrt(kRounds * (1 - p) / p);
      EXPECT_NEAR(calls[i], kRounds, 5 * se + 1) << sizes[i];
      total += static_cast<double>(kRounds) * static_cast<double>(sizes[i]);
      estimated += bytes[i];
    }
    // Bytes over all sizes: relative standard error about sqrt(rate / total)
    // = 0.1%.
    EXPECT_NEAR(estimated / total, 1.0, 0.01);
  });
  SetSampleRate(0, 0);
}

TEST(SamplerTest, WeightIsOneWhenExact) {
  EXPECT_EQ(format::SampleWeight(100, 0), 1.0);
  EXPECT_EQ(format::SampleWeight(0, 4096), 1.0);
  EXPECT_NEAR(format::SampleWeight(4096, 4096), 1 / (1 - std::exp(-1.0)), 1e-12);
  EXPECT_NEAR(format::SampleWeight(1, 1 << 20), 1 << 20, 1.0);
  EXPECT_NEAR(format::SampleWeight(uint64_t{1} << 40, 4096), 1.0, 1e-12);
}

}  // namespace
}  // namespace heaprec::recorder::preload
