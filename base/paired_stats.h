// Paired differences between two sets of runs measured round by round (run i
// of X beside run i of a reference, interleaved so that both saw the same
// machine), with a percentile bootstrap confidence interval of their median
// and the noise decision: "no difference beyond noise" when the interval
// contains zero.
//
//   std::vector<double> x = ..., glibc = ...;   // one value per round
//   PairedDifference d = ComparePaired(x, glibc);
//   if (d.HasInterval() && !d.noise) ... d.median, d.low, d.high
//
// The statistic is the median of the per-round differences (x[i] - ref[i]):
// one disturbed round (a cron job, a page-cache miss) moves a mean, not a
// median. The resampling is seeded (splitmix64, a fixed default seed), so the
// same data always gives the same interval on every machine.
// Pure functions; allocate; thread-compatible. Used by heapreplay --bench
// (replay/bench_report.h) and heaprec --compare-allocators
// (replay/program_compare.h).
#ifndef HEAPREC_BASE_PAIRED_STATS_H_
#define HEAPREC_BASE_PAIRED_STATS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace heaprec::base {

struct BootstrapOptions {
  int resamples = 2000;
  double confidence = 0.90;             // two-sided: the 5th and 95th percentiles
  uint64_t seed = 0x68656170726563ull;  // "heaprec"
};

struct PairedDifference {
  size_t pairs = 0;   // rounds compared
  double median = 0;  // median of x[i] - ref[i]
  double mean = 0;    // mean of the same, for reference
  double low = 0;     // the interval of the median; equal to median with < 2 pairs
  double high = 0;
  // The interval contains zero, or there are fewer than two pairs (nothing
  // can be told apart from noise with one round).
  bool noise = true;
  bool HasInterval() const { return pairs >= 2; }
};

// The median of values (0 when empty); the mean of the middle two for an
// even count.
double Median(std::vector<double> values);

// Pairs x[i] with reference[i] for i below the shorter length.
PairedDifference ComparePaired(const std::vector<double>& x, const std::vector<double>& reference,
                               const BootstrapOptions& options = {});

// The same from the differences themselves.
PairedDifference DescribeDifferences(const std::vector<double>& differences,
                                     const BootstrapOptions& options = {});

}  // namespace heaprec::base

#endif  // HEAPREC_BASE_PAIRED_STATS_H_
