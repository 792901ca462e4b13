// The LEAK SUMMARY block exactly as memcheck 3.19 prints it (mc_leakcheck.c
// 1698-1776; spec section 10.1), without the "==PID== " prefixes and without
// the advice lines after it: so heaprec's leak gate reads like valgrind, and
// tests compare with valgrind's output verbatim.
//
// Suppressions are the caller's: it moves suppressed records' totals from
// their kind to `suppressed` (the heuristic lines stay, spec 6.4).
//
// No state; allocates the string; thread-safe.
#ifndef HEAPREC_RECORDER_LEAKSCAN_LEAK_SUMMARY_H_
#define HEAPREC_RECORDER_LEAKSCAN_LEAK_SUMMARY_H_

#include <array>
#include <cstdint>
#include <string>

#include "recorder/leakscan/leak_graph.h"

namespace heaprec::recorder::leakscan {

struct LeakSummary {
  std::array<Totals, kLeakKindCount> by_kind;         // indexed by LeakKind
  std::array<Totals, kHeuristicCount> via_heuristic;  // indexed by Heuristic
  Totals suppressed;
};

LeakSummary SummaryOf(const LeakScanResult& result);

// "LEAK SUMMARY:\n   definitely lost: 16 bytes in 1 blocks\n..." up to and
// with the "suppressed" line.
std::string FormatLeakSummary(const LeakSummary& summary);

// %'lu: 72704 -> "72,704".
std::string WithThousands(uint64_t n);

}  // namespace heaprec::recorder::leakscan

#endif  // HEAPREC_RECORDER_LEAKSCAN_LEAK_SUMMARY_H_
