// A whole malloc+free (and new+delete), as a traced program sees it.
//
// Nothing of heaprec is linked in: tools/bench_recorder.sh runs this binary
// bare, under `heaprec` and under `heaptrack`, and the difference in time per
// iteration is the full cost of recording one allocation and one free (hooks,
// stack capture, stack table, ring, and whatever the launcher or heaptrack's
// interpreter takes from the other core). Each loop runs `depth` extra frames
// below the benchmark function, so the unwinder walks a deeper stack.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <new>

#include "recorder/benchmarks/at_depth.h"

namespace {

using heaprec::benchmarks::AtDepth;

// Runs first and is left out of the tables: under heaptrack, the first
// allocations wait while heaptrack_interpret starts up.
void BM_WarmUp(benchmark::State& state) {
  for (auto _ : state) {
    void* p = std::malloc(32);
    benchmark::DoNotOptimize(p);
    std::free(p);
  }
}
BENCHMARK(BM_WarmUp)->MinTime(0.2);

void BM_MallocFree(benchmark::State& state) {
  auto body = [&] {
    for (auto _ : state) {
      void* p = std::malloc(32);
      benchmark::DoNotOptimize(p);
      std::free(p);
    }
  };
  AtDepth(static_cast<int>(state.range(0)), body);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MallocFree)->ArgName("depth")->Arg(0)->Arg(8)->Arg(16)->Arg(32);

void BM_NewDelete(benchmark::State& state) {
  auto body = [&] {
    for (auto _ : state) {
      void* p = ::operator new(48);
      benchmark::DoNotOptimize(p);
      ::operator delete(p, 48);
    }
  };
  AtDepth(static_cast<int>(state.range(0)), body);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_NewDelete)->ArgName("depth")->Arg(8);

// 64 blocks of mixed sizes allocated, then all freed: the allocator hands out
// different addresses, as in a program that keeps what it allocates a while.
void BM_MallocBatchThenFree(benchmark::State& state) {
  void* blocks[64];
  auto body = [&] {
    for (auto _ : state) {
      for (int i = 0; i < 64; ++i) {
        blocks[i] = std::malloc(16 + 16 * static_cast<size_t>(i % 8));
        benchmark::DoNotOptimize(blocks[i]);
      }
      for (int i = 0; i < 64; ++i) std::free(blocks[i]);
    }
  };
  AtDepth(static_cast<int>(state.range(0)), body);
  state.SetItemsProcessed(64 * state.iterations());
}
BENCHMARK(BM_MallocBatchThenFree)->ArgName("depth")->Arg(8);

}  // namespace
