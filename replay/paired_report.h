// How a paired difference against the reference allocator (glibc) is shown,
// the same in heapreplay --bench and heaprec --compare-allocators: one text
// line per measure ("wall  -12.3 ms [-14.0, -10.1]  saves 12.3 ms", or "no
// difference beyond noise"), the JSON object DIFF of docs/DESIGN.md, and
// which allocator is best beyond noise. Differences are X - reference, so a
// negative one is a saving. Pure functions; allocate.
#ifndef HEAPREC_REPLAY_PAIRED_REPORT_H_
#define HEAPREC_REPLAY_PAIRED_REPORT_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/paired_stats.h"

namespace heaprec::replay {

enum class Unit { kSeconds, kBytes };

// "-12.3 ms [-14.0, -10.1]  saves 12.3 ms", "+1.20 MiB [+1.02, +1.41]  costs
// 1.20 MiB", "+0.4 ms [-1.0, +2.0]  no difference beyond noise", or with
// fewer than two pairs "+0.4 ms (one run: no interval)".
std::string DifferenceText(const base::PairedDifference& d, Unit unit);

// {"median", "low", "high", "mean", "pairs", "beyond_noise"} in the unit
// the difference was computed in (seconds or bytes).
nlohmann::json DifferenceJson(const base::PairedDifference& d);

// How the differences were computed: {"statistic", "confidence",
// "resamples", "seed"}.
nlohmann::json DifferenceMethodJson(const base::BootstrapOptions& options = {});

// "median of N paired runs, 90% bootstrap interval in brackets".
std::string DifferenceMethodText(size_t pairs, const base::BootstrapOptions& options = {});

// The index of the lowest median among the differences below zero beyond
// noise, or -1 when none is.
int BestBeyondNoise(const std::vector<base::PairedDifference>& diffs);

// "-12.3 ms", "+1.20 MiB": a signed amount in the unit's readable scale.
std::string SignedAmount(double value, Unit unit);

// text in lines of at most width columns, broken between words, each ending
// in a newline (the reports' closing sentences).
std::string WrapText(const std::string& text, size_t width);

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_PAIRED_REPORT_H_
