// Estimate: the bytes and calls (or blocks) one recorded event or live block
// stands for. In an exact trace that is its size and 1; in a sampled one
// (heaprec --sample-rate; format/sampling.h) its size and 1 scaled by the
// event's weight. The one place where analyses scale: LiveHeap gives each
// HeapChange and live block its Estimate, and the analyzers sum those
// instead of sizes and ones, so an exact trace's numbers stay exactly what
// they were.
//
// Counts are whole numbers: a weight of 3.4 counts 3 or 4, 4 with chance 0.4
// decided by a hash of a salt (the block's number), so sums stay unbiased and
// a block counts the same when it is made and when it is released.
// Pure functions; header-only.
#ifndef HEAPREC_ANALYZERS_ESTIMATE_H_
#define HEAPREC_ANALYZERS_ESTIMATE_H_

#include <cmath>
#include <cstdint>

namespace heaprec::analyzers {

struct Estimate {
  uint64_t bytes = 0;
  uint64_t count = 0;
};

// size bytes recorded once with this weight; salt: the block's number.
inline Estimate EstimateOf(uint64_t size, double weight, uint64_t salt) {
  if (weight == 1.0) return {size, 1};
  const double whole = std::floor(weight);
  uint64_t h = salt * 0x9e3779b97f4a7c15ULL;
  h ^= h >> 32;
  h *= 0xd6e8feb86659fd93ULL;
  h ^= h >> 32;
  const double u = static_cast<double>(h >> 11) * 0x1p-53;  // in [0, 1)
  const uint64_t count = static_cast<uint64_t>(whole) + (u < weight - whole ? 1 : 0);
  return {static_cast<uint64_t>(std::llround(static_cast<double>(size) * weight)), count};
}

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_ESTIMATE_H_
