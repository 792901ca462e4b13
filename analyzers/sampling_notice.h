// What every report of a sampled trace (heaprec --sample-rate;
// format/sampling.h) says about itself: one line, the same in the text
// report, the HTML page's warnings, pprof's comments, the flame graph's
// subtitle and heaprec's closing lines. (JSON says it as
// "sampling": {"rate": N}, docs/DESIGN.md.)
// Pure functions; thread-safe.
#ifndef HEAPREC_ANALYZERS_SAMPLING_NOTICE_H_
#define HEAPREC_ANALYZERS_SAMPLING_NOTICE_H_

#include <cstdint>
#include <string>

namespace heaprec::analyzers {

// "512 KiB", "1 MiB", "1000 bytes": the rate as heaprec --sample-rate takes it.
std::string RateWords(uint64_t rate);

// "sampled: every 512 KiB on average (heaprec --sample-rate); numbers are
// estimates"; empty for an exact trace (rate 0).
std::string SamplingNotice(uint64_t rate);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_SAMPLING_NOTICE_H_
