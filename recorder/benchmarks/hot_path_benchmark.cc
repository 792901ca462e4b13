// Micro-benchmarks of the recorder's hot path, in process (docs/BENCHMARKS.md).
//
// The pieces a recorded allocation goes through, timed one by one:
//   BM_UnwBacktrace       libunwind's unw_backtrace, as CaptureStack calls it
//                         (up to max depth + 8 = 72 frames), `depth` frames
//                         below the benchmark function;
//   BM_FastBacktrace      FastBacktrace (CaptureStack calls FastBacktraceFrom) with
//                         the same arguments, from the same call site,
//                         repeated: the rule walk with prefix reuse;
//   BM_FastBacktraceNoReuse  the same with prefix reuse off (every frame
//                         walked with cached rules);
//   BM_FastBacktraceAlternating  FastBacktrace from two call depths in turn
//                         (`depth` and depth + 2 frames below the loop): the
//                         reused outer frames sit at another index each time;
//   BM_InternStackHit     InternStack on a stack already in the table (the
//                         common case), cycling over `distinct` stacks;
//   BM_InternStackMiss    InternStack on a new stack (an insert);
//   BM_InternStackCached  InternStackCached (what CaptureStack calls) on two
//                         stacks in turn that share all but `inner` innermost
//                         frames (inner = 0: one stack repeated);
//   BM_InternStackAlternating  plain InternStack on the same sequence;
//   BM_ClockMonotonic,    the clock read (CLOCK_MONOTONIC before, the
//   BM_ClockMonotonicCoarse  coarse clock NowNs() reads now) and the seq
//   BM_SeqFetchAdd        fetch_add that every record costs;
//   BM_EnterLeave         the re-entry guard and mode checks, recorder on;
//   BM_WriteEvent         Enter + TakeSeq + WriteEvent (clock, ring append)
//                         + Leave: what recording a free costs besides the
//                         real free;
//   BM_RecordedMallocFree malloc + free through the recorder's hooks with
//                         recording on, everything but the launcher.
//
// The stack-table benchmarks use a private anonymous mapping of kRegionBytes,
// as the region file would be, with the same layout.
//
// This program links //recorder:preload_core, whose hooks then are this
// program's malloc, free and operator new. To time WriteEvent and a recorded
// malloc+free without the real launcher, main() re-executes the program with
// the launcher's environment pointing at a session folder of its own and with
// its own pid as the launcher's; the recorder's constructor then creates the
// region as under heaprec, and a thread here (NullLauncher) maps it and marks
// every ring drained every 20 us, discarding the records. So these numbers
// are the producer side alone; the launcher's share (ordering, encoding,
// compressing on the other core, and waits on full rings) is what
// tools/bench_recorder.sh's out-of-process malloc_free_benchmark adds.
//
// Caveat: the recorder skips the innermost frames that lie in its own text
// segment; linked into this executable, that segment is the executable's, so
// in BM_RecordedMallocFree the stack it interns starts at the first frame in
// libbenchmark (the unwinder still walks every frame, so unwind cost is
// real; only the hashed and compared stack is shorter than `depth` suggests).
#include <benchmark/benchmark.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "format/api.h"
#include "recorder/benchmarks/at_depth.h"
#include "recorder/preload/fast_unwind.h"
#include "recorder/preload/recorder.h"
#include "recorder/preload/stack_cache.h"
#include "recorder/preload/stack_interner.h"
#include "recorder/shared/private_region.h"
#include "recorder/shared/region_layout.h"

namespace heaprec::recorder {
namespace {

namespace pre = preload;

// Set by main() when it re-executes itself with the recorder on: the session
// folder (the recorder unsets HEAPREC_SESSION itself when following is off).
constexpr char kNullLauncherEnv[] = "HEAPREC_BENCH_NULL_LAUNCHER";

using benchmarks::AtDepth;

// Stack capture -----------------------------------------------------------

void BM_UnwBacktrace(benchmark::State& state) {
  // CaptureStack asks for max depth + 8 frames (64 + 8 by default).
  constexpr int kWant = 64 + 8;
  void* ips[kWant];
  int frames = 0;
  auto body = [&] {
    for (auto _ : state) {
      frames = unw_backtrace(ips, kWant);
      benchmark::DoNotOptimize(frames);
      benchmark::ClobberMemory();
    }
  };
  AtDepth(static_cast<int>(state.range(0)), body);
  state.counters["frames"] = frames;
}
BENCHMARK(BM_UnwBacktrace)->ArgName("depth")->Arg(0)->Arg(8)->Arg(24)->Arg(32)->Arg(56);

void RunFastBacktrace(benchmark::State& state, bool reuse) {
  constexpr int kWant = 64 + 8;
  void* ips[kWant];
  int frames = 0;
  pre::SetFastUnwindOptions(reuse, /*verify_prefix=*/true);
  const pre::FastUnwindStats before = pre::FastUnwindThreadStats();
  auto body = [&] {
    for (auto _ : state) {
      frames = pre::FastBacktrace(ips, kWant);
      benchmark::DoNotOptimize(frames);
      benchmark::ClobberMemory();
    }
  };
  AtDepth(static_cast<int>(state.range(0)), body);
  pre::SetFastUnwindOptions(true, true);
  const pre::FastUnwindStats after = pre::FastUnwindThreadStats();
  const double calls = static_cast<double>(after.captures - before.captures);
  state.counters["frames"] = frames;
  // Share of captures answered without libunwind (the first one learns).
  state.counters["fast"] = calls > 0 ? static_cast<double>(after.fast - before.fast) / calls : 0;
  state.counters["recent"] =
      calls > 0 ? static_cast<double>(after.recent - before.recent) / calls : 0;
  state.counters["reused"] =
      calls > 0 ? static_cast<double>(after.reused - before.reused) / calls : 0;
}

void BM_FastBacktrace(benchmark::State& state) { RunFastBacktrace(state, true); }
BENCHMARK(BM_FastBacktrace)->ArgName("depth")->Arg(0)->Arg(8)->Arg(32);

void BM_FastBacktraceNoReuse(benchmark::State& state) { RunFastBacktrace(state, false); }
BENCHMARK(BM_FastBacktraceNoReuse)->ArgName("depth")->Arg(0)->Arg(8)->Arg(32);

// Calls FastBacktrace `extra` frames further down.
__attribute__((noinline)) int BacktraceBelow(int extra, void** ips, int want) {
  if (extra > 0) {
    const int n = BacktraceBelow(extra - 1, ips, want);
    asm volatile("" ::: "memory");  // not a tail call: the frame stays
    return n;
  }
  return pre::FastBacktrace(ips, want);
}

void BM_FastBacktraceAlternating(benchmark::State& state) {
  constexpr int kWant = 64 + 8;
  void* ips[kWant];
  int frames = 0, i = 0;
  auto body = [&] {
    for (auto _ : state) {
      frames = BacktraceBelow((++i & 1) * 2, ips, kWant);
      benchmark::DoNotOptimize(frames);
      benchmark::ClobberMemory();
    }
  };
  AtDepth(static_cast<int>(state.range(0)), body);
  state.counters["frames"] = frames;
}
BENCHMARK(BM_FastBacktraceAlternating)->ArgName("depth")->Arg(8)->Arg(32);

// Stack table ---------------------------------------------------------------

// Plausible return addresses: text of a PIE executable, distinct per seed.
void MakeStack(uint64_t seed, uint32_t depth, uint64_t* frames) {
  for (uint32_t i = 0; i < depth; ++i) {
    const uint64_t mix = (seed * 0x9E3779B97F4A7C15ULL + i * 0xBF58476D1CE4E5B9ULL) >> 40;
    frames[i] = 0x55d4'a000'0000ULL + (mix & 0xFFFFFF);
  }
}

// depth = frames per stack; distinct = how many different stacks the loop
// looks up in turn (1: always the same, as a hot loop; 4096: spread over the
// table, as a program with many call sites).
void BM_InternStackHit(benchmark::State& state) {
  const auto depth = static_cast<uint32_t>(state.range(0));
  const auto distinct = static_cast<uint32_t>(state.range(1));
  PrivateRegion region;
  std::vector<uint64_t> stacks(static_cast<size_t>(depth) * distinct);
  std::vector<uint32_t> ids(distinct);
  for (uint32_t s = 0; s < distinct; ++s) {
    MakeStack(s + 1, depth, &stacks[static_cast<size_t>(s) * depth]);
    bool inserted = false;
    ids[s] =
        pre::InternStack(region.view(), &stacks[static_cast<size_t>(s) * depth], depth, &inserted);
  }
  uint32_t s = 0;
  for (auto _ : state) {
    bool inserted = false;
    const uint32_t id =
        pre::InternStack(region.view(), &stacks[static_cast<size_t>(s) * depth], depth, &inserted);
    benchmark::DoNotOptimize(id);
    if (id != ids[s] || inserted) {
      state.SkipWithError("lookup did not find the stack");
      break;
    }
    if (++s == distinct) s = 0;
  }
}
BENCHMARK(BM_InternStackHit)
    ->ArgNames({"depth", "distinct"})
    ->ArgsProduct({{4, 16, 64}, {1, 4096}});

// Every iteration interns a stack never seen before (its innermost frame
// differs). The table is emptied every 65536 inserts (untimed), so the index
// stays under 4% full; the fresh arena pages' first-touch faults are timed,
// as they happen in a traced program too.
void BM_InternStackMiss(benchmark::State& state) {
  const auto depth = static_cast<uint32_t>(state.range(0));
  PrivateRegion region;
  std::vector<uint64_t> frames(depth);
  MakeStack(7, depth, frames.data());
  const uint64_t base = frames[0];
  uint64_t n = 0;
  for (auto _ : state) {
    if ((n & 0xFFFF) == 0xFFFF) {
      state.PauseTiming();
      region.Reset();
      state.ResumeTiming();
    }
    frames[0] = base + 16 * ++n;
    bool inserted = false;
    const uint32_t id = pre::InternStack(region.view(), frames.data(), depth, &inserted);
    benchmark::DoNotOptimize(id);
    if (id == 0 || !inserted) {
      state.SkipWithError("insert failed");
      break;
    }
  }
}
BENCHMARK(BM_InternStackMiss)->ArgName("depth")->Arg(4)->Arg(16)->Arg(64);

// Two stacks of `depth` frames that differ in their `inner` innermost frames,
// looked up in turn, through the thread's stack cache or without it.
void RunInternAlternating(benchmark::State& state, bool cached) {
  const auto depth = static_cast<uint32_t>(state.range(0));
  const auto inner = static_cast<uint32_t>(state.range(1));
  PrivateRegion region;
  std::vector<uint64_t> a(depth), b(depth);
  MakeStack(1, depth, a.data());
  b = a;
  for (uint32_t i = 0; i < inner && i < depth; ++i) b[i] += 0x1000;
  static pre::StackCache cache;  // as the recorder's TLS one: zero = empty
  cache = {};
  const uint64_t* stacks[2] = {a.data(), b.data()};
  bool inserted = false;
  const uint32_t ids[2] = {pre::InternStack(region.view(), a.data(), depth, &inserted),
                           pre::InternStack(region.view(), b.data(), depth, &inserted)};
  uint32_t s = 0;
  for (auto _ : state) {
    const uint32_t id =
        cached ? pre::InternStackCached(cache, 1, region.view(), stacks[s], depth, &inserted)
               : pre::InternStack(region.view(), stacks[s], depth, &inserted);
    benchmark::DoNotOptimize(id);
    if (id != ids[s]) {
      state.SkipWithError("lookup did not find the stack");
      break;
    }
    s ^= 1;
  }
}

void BM_InternStackCached(benchmark::State& state) { RunInternAlternating(state, true); }
BENCHMARK(BM_InternStackCached)->ArgNames({"depth", "inner"})->ArgsProduct({{24}, {0, 4, 12}});

void BM_InternStackAlternating(benchmark::State& state) { RunInternAlternating(state, false); }
BENCHMARK(BM_InternStackAlternating)->ArgNames({"depth", "inner"})->ArgsProduct({{24}, {0, 4, 12}});

// What WriteEvent does besides the ring store --------------------------------

// NowNs(): one clock_gettime(CLOCK_MONOTONIC) per record (vDSO).
void BM_ClockMonotonic(benchmark::State& state) {
  for (auto _ : state) {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    benchmark::DoNotOptimize(ts);
  }
}
BENCHMARK(BM_ClockMonotonic);

// NowNs() since the trace keeps 1 ms: CLOCK_MONOTONIC_COARSE (vDSO, no TSC read).
void BM_ClockMonotonicCoarse(benchmark::State& state) {
  for (auto _ : state) {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    benchmark::DoNotOptimize(ts);
  }
}
BENCHMARK(BM_ClockMonotonicCoarse);

// TakeSeq() once a second thread records: one fetch_add on the region's
// next_seq per record; here on a private line with one thread (no other
// core touching it). A thread recording alone counts with plain stores.
void BM_SeqFetchAdd(benchmark::State& state) {
  alignas(64) static std::atomic<uint64_t> seq{1};
  for (auto _ : state) benchmark::DoNotOptimize(seq.fetch_add(1, std::memory_order_acq_rel));
}
BENCHMARK(BM_SeqFetchAdd);

// The recorder switched on -------------------------------------------------

// Stands in for heaprec's launcher: maps this process's region and marks
// every ring drained, so producers never wait; counts what it discarded.
class NullLauncher {
 public:
  bool Start(const std::string& session_dir) {
    DIR* dir = opendir(session_dir.c_str());
    if (dir == nullptr) return false;
    std::string path;
    while (const dirent* ent = readdir(dir)) {
      const std::string name = ent->d_name;
      if (name.size() > 7 && name.compare(name.size() - 7, 7, ".region") == 0) {
        path = session_dir + "/" + name;
      }
    }
    closedir(dir);
    if (path.empty()) return false;
    const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return false;
    void* p = mmap(nullptr, kRegionBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    unlink(path.c_str());  // the mappings keep it; nothing is left behind
    rmdir(session_dir.c_str());
    if (p == MAP_FAILED) return false;
    region_.base = static_cast<uint8_t*>(p);
    thread_ = std::thread([this] { Loop(); });
    return true;
  }

  void Stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }

  // Records discarded so far (all rings).
  uint64_t drained() const { return drained_.load(std::memory_order_relaxed); }
  const RegionView& region() const { return region_; }

 private:
  void Loop() {
    Ring* rings = region_.rings();
    while (!stop_.load(std::memory_order_relaxed)) {
      for (uint32_t s = 0; s < kSlots; ++s) {
        const uint64_t head = rings[s].head.load(std::memory_order_acquire);
        const uint64_t tail = rings[s].tail.load(std::memory_order_relaxed);
        if (head != tail) {
          drained_.fetch_add(head - tail, std::memory_order_relaxed);
          rings[s].tail.store(head, std::memory_order_release);
        }
      }
      const timespec pause = {0, 20 * 1000};
      nanosleep(&pause, nullptr);
    }
  }

  RegionView region_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> drained_{0};
};

NullLauncher* g_launcher = nullptr;

bool RecorderOn(benchmark::State& state) {
  if (g_launcher == nullptr) {
    state.SkipWithError("recorder not on (HEAPREC_BENCH_NULL_LAUNCHER unset)");
    return false;
  }
  return true;
}

// Reports records written per iteration, from the region's seq counter.
class SeqCounter {
 public:
  explicit SeqCounter(const RegionView& region)
      : header_(region.header()), start_(CurrentSeq(*header_)) {}
  double PerIteration(const benchmark::State& state) const {
    const uint64_t n = CurrentSeq(*header_) - start_;
    return state.iterations() == 0 ? 0.0 : static_cast<double>(n) / state.iterations();
  }

 private:
  RegionHeader* header_;
  uint64_t start_;
};

void BM_EnterLeave(benchmark::State& state) {
  if (!RecorderOn(state)) return;
  pre::ThreadState& ts = pre::Tls();
  for (auto _ : state) {
    if (!pre::Enter(ts)) {
      state.SkipWithError("Enter refused");
      break;
    }
    pre::Leave(ts);
  }
}
BENCHMARK(BM_EnterLeave);

void BM_WriteEvent(benchmark::State& state) {
  if (!RecorderOn(state)) return;
  SeqCounter seqs(g_launcher->region());
  pre::ThreadState& ts = pre::Tls();
  uint64_t address = 0x7f00'0000'0000ULL;
  for (auto _ : state) {
    if (!pre::Enter(ts)) {
      state.SkipWithError("Enter refused");
      break;
    }
    pre::WriteEvent(ts, pre::TakeSeq(), format::Api::kFree, pre::Hide(address), 0, 0, 0);
    pre::Leave(ts);
    address += 16;
  }
  state.counters["records_per_iter"] = seqs.PerIteration(state);
}
BENCHMARK(BM_WriteEvent);

void BM_RecordedMallocFree(benchmark::State& state) {
  if (!RecorderOn(state)) return;
  SeqCounter seqs(g_launcher->region());
  auto body = [&] {
    for (auto _ : state) {
      void* p = std::malloc(32);
      benchmark::DoNotOptimize(p);
      std::free(p);
    }
  };
  AtDepth(static_cast<int>(state.range(0)), body);
  state.counters["records_per_iter"] = seqs.PerIteration(state);
}
BENCHMARK(BM_RecordedMallocFree)->ArgName("depth")->Arg(0)->Arg(8)->Arg(32);

// Re-executes this program with the recorder's environment set (see the
// file comment). Returns only on failure.
int ReexecWithRecorder(char** argv) {
  std::string dir;
  for (const char* base : {"/dev/shm", "/tmp"}) {
    std::string templ = std::string(base) + "/heaprec-bench.XXXXXX";
    if (mkdtemp(templ.data()) != nullptr) {
      dir = templ;
      break;
    }
  }
  if (dir.empty()) {
    std::perror("hot_path_benchmark: mkdtemp");
    return 1;
  }
  setenv(kNullLauncherEnv, dir.c_str(), 1);
  setenv(kSessionEnv, dir.c_str(), 1);
  setenv(kLauncherPidEnv, std::to_string(getpid()).c_str(), 1);  // exec keeps the pid
  setenv(kDepthEnv, "64", 1);
  setenv(kFollowEnv, "0", 1);
  setenv(kMarkSignalEnv, "0", 1);
  setenv(kLeakScanEnv, "0", 1);  // no launcher answers a scan at the end
  execv("/proc/self/exe", argv);
  std::perror("hot_path_benchmark: exec");
  rmdir(dir.c_str());
  return 1;
}

}  // namespace
}  // namespace heaprec::recorder

int main(int argc, char** argv) {
  using namespace heaprec::recorder;
  const char* session = std::getenv(kNullLauncherEnv);
  if (session == nullptr) {
    if (std::getenv(kSessionEnv) != nullptr) {
      std::fprintf(stderr, "hot_path_benchmark: run it directly, not under heaprec\n");
      return 2;
    }
    return ReexecWithRecorder(argv);
  }
  NullLauncher launcher;
  if (!launcher.Start(session)) {
    std::fprintf(stderr, "hot_path_benchmark: no region in %s: the recorder did not start\n",
                 session);
    rmdir(session);
    return 1;
  }
  g_launcher = &launcher;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_launcher = nullptr;
  launcher.Stop();
  return 0;
}
