// What a sampled trace's events stand for (heaprec --sample-rate;
// ProcessInfo::sample_rate, FORMAT.md "Process"). The recorder samples
// allocations by bytes as a Poisson process with one point every `rate`
// bytes on average (recorder/preload/sampler.h): an allocation of s bytes is
// recorded with probability p = 1 - exp(-s / rate), so each recorded one
// stands for 1 / p such allocations, the unbiased estimate pprof and Go call
// "unsampling". The reader puts this weight in Event::weight.
//
// Header-only, pure functions; for the reader and the analyzers.
#ifndef HEAPREC_FORMAT_SAMPLING_H_
#define HEAPREC_FORMAT_SAMPLING_H_

#include <cmath>
#include <cstdint>

namespace heaprec::format {

// The allocations a sampled one of size bytes stands for; 1 for an exact
// trace (rate 0) and for size 0 (never sampled: only a block recorded
// before sampling began has it).
inline double SampleWeight(uint64_t size, uint64_t rate) {
  if (rate == 0 || size == 0) return 1.0;
  return -1.0 / std::expm1(-static_cast<double>(size) / static_cast<double>(rate));
}

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_SAMPLING_H_
