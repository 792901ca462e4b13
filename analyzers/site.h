// Site: one call stack's share of an analysis (bytes and a count), the unit
// every report prints (docs/DESIGN.md's SITE) and every output format draws
// (text, JSON, folded stacks, flame graphs, pprof). What `count` counts
// depends on the analysis: blocks for leaks and peak, allocation calls for
// hot sites and temporaries.
// Plain data.
#ifndef HEAPREC_ANALYZERS_SITE_H_
#define HEAPREC_ANALYZERS_SITE_H_

#include <cstdint>
#include <vector>

namespace heaprec::analyzers {

struct Site {
  uint32_t stack = 0;  // StackNode id of the innermost frame; 0 = no stack
  uint64_t bytes = 0;
  uint64_t count = 0;
  friend bool operator==(const Site&, const Site&) = default;
};

// Which number of a Site a flame graph, folded output or top table weighs.
enum class Metric { kBytes, kCount };

inline uint64_t ValueOf(const Site& s, Metric m) { return m == Metric::kBytes ? s.bytes : s.count; }

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_SITE_H_
