// heaprec --compare-allocators: the program itself (not recorded) run under
// each allocator, round by round, and what the runs say.
//
// Round r runs every allocator once, in the list's order rotated by r
// (glibc first in round 0, tcmalloc first in round 1, ...), so that no
// allocator always runs first (cold caches) or right after another. Each
// run's wall time, CPU time and max RSS (program_run.h) is paired with the
// reference's run of the same round (glibc, or the first allocator without
// glibc): the per-round differences X - reference, their median and its
// bootstrap interval (base/paired_stats.h). A run whose exit code differs
// from the reference's in its round failed: it is reported and left out of
// the pairs. Text and the JSON object "compare_allocators" of
// docs/DESIGN.md.
// Allocates; runs programs (blocks); not thread-safe. Used by heaprec's
// main().
#ifndef HEAPREC_REPLAY_PROGRAM_COMPARE_H_
#define HEAPREC_REPLAY_PROGRAM_COMPARE_H_

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/paired_stats.h"
#include "replay/allocators.h"
#include "replay/program_run.h"

namespace heaprec::replay {

struct CompareOptions {
  std::vector<std::string> command;
  std::vector<AllocatorSpec> allocators;
  int rounds = 10;
  ProgramOutput output = ProgramOutput::kDiscard;
};

struct AllocatorRuns {
  AllocatorSpec spec;
  std::vector<ProgramRun> runs;                     // one per round, in round order
  std::vector<bool> failed;                         // exit code differs from the reference's
  double wall_s = 0, cpu_s = 0, max_rss_bytes = 0;  // medians over runs not failed
  // X - reference over the rounds where neither failed; no pairs for the
  // reference itself.
  base::PairedDifference wall_diff, cpu_diff, rss_diff;
  int FailedRuns() const;
};

struct CompareResult {
  std::vector<std::string> command;
  int rounds = 0;
  ProgramOutput output = ProgramOutput::kDiscard;
  size_t reference = 0;  // index into allocators
  std::vector<AllocatorRuns> allocators;
  std::vector<std::vector<size_t>> orders;  // per round, the allocators' indexes as run
  bool AnyFailed() const;
};

// The order of round `round` over n allocators: 0..n-1 rotated by round.
std::vector<size_t> RoundOrder(size_t n, int round);

// Runs every round; progress(round) before each round if set. False with
// *error when the program cannot be started (the first run says so).
bool CompareAllocators(const CompareOptions& options, CompareResult* result, std::string* error,
                       const std::function<void(int)>& progress = {});

// Medians, failures and differences from the runs (CompareAllocators calls
// it; public for tests with made-up runs).
void SummarizeRuns(CompareResult* result);

std::string CompareText(const CompareResult& result);
nlohmann::json CompareJson(const CompareResult& result);

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_PROGRAM_COMPARE_H_
