// Paired differences and their bootstrap interval (paired_stats.h).
#include "base/paired_stats.h"

#include <algorithm>
#include <cmath>

namespace heaprec::base {
namespace {

// splitmix64: small, fast, and the same sequence everywhere (the standard
// library's distributions are not specified bit for bit).
uint64_t NextRandom(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t n = v.size();
  std::nth_element(v.begin(), v.begin() + n / 2, v.end());
  const double upper = v[n / 2];
  if (n % 2 == 1) return upper;
  return (*std::max_element(v.begin(), v.begin() + n / 2) + upper) / 2;
}

PairedDifference ComparePaired(const std::vector<double>& x, const std::vector<double>& reference,
                               const BootstrapOptions& options) {
  std::vector<double> d;
  const size_t n = std::min(x.size(), reference.size());
  for (size_t i = 0; i < n; ++i) d.push_back(x[i] - reference[i]);
  return DescribeDifferences(d, options);
}

PairedDifference DescribeDifferences(const std::vector<double>& d,
                                     const BootstrapOptions& options) {
  PairedDifference r;
  r.pairs = d.size();
  if (d.empty()) return r;
  r.median = Median(d);
  double sum = 0;
  for (double v : d) sum += v;
  r.mean = sum / double(d.size());
  r.low = r.high = r.median;
  if (d.size() < 2 || options.resamples < 1) return r;

  uint64_t state = options.seed;
  std::vector<double> medians(static_cast<size_t>(options.resamples));
  std::vector<double> sample(d.size());
  for (double& m : medians) {
    for (double& s : sample) s = d[NextRandom(&state) % d.size()];
    m = Median(sample);
  }
  std::sort(medians.begin(), medians.end());
  // Percentile interval, nearest rank on each side.
  const double tail = (1 - options.confidence) / 2;
  const size_t last = medians.size() - 1;
  const auto at = [&](double q) {
    return medians[std::min(last, static_cast<size_t>(std::floor(q * double(last) + 0.5)))];
  };
  r.low = at(tail);
  r.high = at(1 - tail);
  r.noise = r.low <= 0 && r.high >= 0;
  return r;
}

}  // namespace heaprec::base
