// The results of heapreplay --bench and how they are shown: medians and
// spread over the runs, a text table (glibc = 1.00x, the best value of each
// column marked *), each allocator's paired differences to the reference
// (glibc) run by run with their bootstrap interval (base/paired_stats.h), of
// the program's allocator cost (start-up time + the replayed calls), the
// fastest beyond noise, what a replay cannot see, and the "bench" object of
// docs/DESIGN.md's JSON contract.
// Pure functions of the results; allocate.
#ifndef HEAPREC_REPLAY_BENCH_REPORT_H_
#define HEAPREC_REPLAY_BENCH_REPORT_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/paired_stats.h"
#include "replay/allocators.h"
#include "replay/bench_sample.h"
#include "replay/compiled_ops.h"

namespace heaprec::replay {

struct Stat {
  double median = 0, min = 0, max = 0;
  // (max - min) / median, in percent; 0 for one run.
  double SpreadPercent() const { return median > 0 ? 100 * (max - min) / median : 0; }
};
Stat Summarize(std::vector<double> values);

struct AllocatorResult {
  AllocatorSpec spec;
  std::vector<RunSample> runs;
  Stat wall_ns, cpu_ns, minor_faults, fragmentation;
  // The allocator's share of the program's RSS: its start-up memory
  // (StartupRss, bench_sample.h) plus the replay's growth (at the peak, at the
  // end, after releasing free memory), per run, at least 0. replay_peak_rss
  // is the growth alone; fragmentation = replay_peak_rss / peak live bytes.
  Stat startup_rss, peak_rss, end_rss, released_rss, replay_peak_rss;
  double ns_per_op = 0;  // median wall / ops
  // The allocator's start-up time, wall and CPU (StartupNs, bench_sample.h),
  // and the program's allocator cost: start-up + the replayed calls, per run
  // (wall_ns and cpu_ns are the calls alone).
  Stat startup_ns, startup_cpu_ns, with_startup_wall_ns, with_startup_cpu_ns;
  // X - reference, run i against the reference's run i (the runs are
  // interleaved); seconds and bytes. No pairs for the reference itself.
  // wall_diff and cpu_diff are of the program's allocator cost (start-up +
  // calls); startup_diff and startup_cpu_diff of the start-up alone (the
  // part of wall_diff and cpu_diff that is start-up).
  base::PairedDifference wall_diff, cpu_diff, peak_rss_diff, startup_diff, startup_cpu_diff;
};

struct BenchResult {
  std::string trace;
  CompileStats stats;
  int repeat = 0;
  std::string touch;
  Stat null_wall_ns;
  std::vector<AllocatorResult> allocators;
  std::string reference;  // glibc, or the first allocator without glibc
};

// What a replay cannot see, and where the real program's answer is (one
// line, in the text, the JSON and the HTML page).
extern const char kReplayCannotSee[];

// Fills each allocator's Stats from its runs, and its differences to the
// reference.
void Summarize(BenchResult* r);

std::string BenchText(const BenchResult& r);
nlohmann::json BenchJson(const BenchResult& r);

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_BENCH_REPORT_H_
