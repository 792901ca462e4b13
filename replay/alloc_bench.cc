// alloc_bench: heapreplay --bench's replay as Google Benchmark cases, one per
// allocator (and "null", the replayer alone), for --benchmark_filter,
// --benchmark_repetitions and the library's statistics and output formats.
//
//   bazel-bin/replay/alloc_bench [--benchmark_...] TRACE [glibc,jemalloc,...]
//
// Each iteration is one replay in a fresh worker process (this binary
// re-executed in heapreplay's worker mode under LD_PRELOAD, bench_worker.h);
// the iteration time is the worker's replay wall time (manual time), and
// the counters are the worker's CPU time, peak RSS above baseline, minor
// faults and fragmentation. Exit 1 with one line for a missing library or an
// unreadable trace.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "format/read_ahead.h"
#include "replay/allocators.h"
#include "replay/bench_runner.h"
#include "replay/bench_worker.h"
#include "replay/compiled_image.h"
#include "replay/trace_compiler.h"

namespace {

using namespace heaprec::replay;

struct Setup {
  int image_fd = -1;
  CompileStats stats;
};

void Replay(benchmark::State& state, const Setup& setup, const AllocatorSpec& spec, bool null) {
  RunSample s;
  std::string error;
  for (auto _ : state) {
    if (!RunWorker(setup.image_fd, spec, "page", null, false, &s, &error)) {
      state.SkipWithError(error.empty() ? "worker failed" : error.c_str());
      return;
    }
    state.SetIterationTime(double(s.wall_ns) / 1e9);
  }
  const double live = double(setup.stats.peak_live_bytes);
  state.counters["cpu_ms"] = double(s.cpu_ns) / 1e6;
  state.counters["peak_rss"] = double(s.peak_rss);
  state.counters["minor_faults"] = double(s.minor_faults);
  state.counters["frag"] = live > 0 ? double(s.peak_rss) / live : 0;
  state.SetItemsProcessed(state.iterations() * int64_t(setup.stats.ops));
}

int Fail(const std::string& line) {
  std::fprintf(stderr, "alloc_bench: %s\n", line.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == kWorkerFlag) return RunBenchWorker(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (argc < 2 || argc > 3) {
    return Fail("usage: alloc_bench [--benchmark_...] TRACE [glibc,tcmalloc,jemalloc,mimalloc]");
  }
  std::vector<AllocatorSpec> specs;
  std::string error;
  if (!ParseAllocators(argc == 3 ? argv[2] : "glibc,tcmalloc,jemalloc,mimalloc", &specs, &error)) {
    return Fail(error);
  }
  for (const AllocatorSpec& spec : specs) {
    if (const std::string missing = MissingLibrary(spec); !missing.empty()) return Fail(missing);
  }
  TraceCompiler compiler;
  const heaprec::format::ReadResult read = heaprec::format::ReadTraceFileAhead(argv[1], compiler);
  if (read.status == heaprec::format::ReadResult::kError) return Fail(read.message);
  if (compiler.sampled()) return Fail(TraceCompiler::SampledRefusal(argv[1]));
  const CompiledTrace compiled = compiler.Finish();
  static Setup setup;
  setup.image_fd = WriteImage(compiled, &error);
  setup.stats = compiled.stats;
  if (setup.image_fd < 0) return Fail(error);

  benchmark::RegisterBenchmark("replay/null",
                               [](benchmark::State& s) {
                                 Replay(s, setup, {"glibc", "", "", ""}, true);
                               })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
  for (const AllocatorSpec& spec : specs) {
    benchmark::RegisterBenchmark(("replay/" + spec.name).c_str(),
                                 [spec](benchmark::State& s) { Replay(s, setup, spec, false); })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  close(setup.image_fd);
  return 0;
}
