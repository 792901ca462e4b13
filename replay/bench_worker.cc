// One measured replay in a fresh process (bench_worker.h).
#include "replay/bench_worker.h"

#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "replay/allocator_runtime.h"
#include "replay/bench_sample.h"
#include "replay/compiled_image.h"
#include "replay/null_allocator.h"
#include "replay/proc_stats.h"
#include "replay/replayer.h"
#include "replay/rss_sampler.h"
#include "replay/system_allocator.h"

namespace heaprec::replay {

namespace {

int Fail(const std::string& name, const std::string& what) {
  std::fprintf(stderr, "heapreplay: %s: %s\n", name.c_str(), what.c_str());
  return 1;
}

uint64_t Above(uint64_t value, uint64_t baseline) {
  return value > baseline ? value - baseline : 0;
}

// Through the allocator, never elided: a compiler may drop a malloc/free
// pair whose block is unused.
void* volatile first_block;

uint64_t MonotonicNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return uint64_t(t.tv_sec) * 1000000000u + uint64_t(t.tv_nsec);
}

Touch ParseTouch(const std::string& t) {
  return t == "full" ? Touch::kFull : t == "none" ? Touch::kNone : Touch::kPage;
}

}  // namespace

int RunBenchWorker(int argc, char** argv) {
  // Start-up ends here: the allocator's library loaded and its constructors
  // run (before main), and its first call on this thread made (lazy init).
  first_block = std::malloc(64);
  std::free(first_block);
  const uint64_t ready_ns = MonotonicNs();
  const uint64_t ready_cpu_ns = ProcessCpuUsage().cpu_ns;
  if (argc != 9) {
    return Fail("worker", "usage: --bench-worker FD NAME LIBRARY MARKER TOUCH MODE PLOT");
  }
  const int fd = std::atoi(argv[2]);
  AllocatorSpec spec{argv[3], argv[4], "", argv[5]};
  if (spec.library == "-") spec.library.clear();
  if (spec.marker == "-") spec.marker.clear();
  const bool null = std::string(argv[7]) == "null";
  const Touch touch = null ? Touch::kNone : ParseTouch(argv[6]);
  const bool plot = std::string(argv[8]) == "plot";

  const std::string wrong = CheckActiveAllocator(spec);
  if (!wrong.empty()) return Fail(spec.name, wrong);
  std::string error;
  Image image;
  if (!image.Map(fd, &error)) return Fail(spec.name, error);
  image.Prefault();
  Replayer replayer(image, touch,
                    null ? &ReplayThread<NullAllocator> : &ReplayThread<SystemAllocator>);
  if (!replayer.Start(&error)) return Fail(spec.name, error);

  // The preloaded allocator's file as smaps names it (glibc's is in every worker).
  const std::string library_file = spec.library.empty() ? "" : MallocObject();
  RunSample s;
  s.ready_ns = ready_ns;
  s.ready_cpu_ns = ready_cpu_ns;
  if (!ResetPeakRss()) return Fail(spec.name, "cannot reset peak RSS (/proc/self/clear_refs)");
  s.baseline_rss = RssBytes();
  s.baseline_anon_rss = AnonRssBytes();
  if (!library_file.empty()) s.allocator_file_rss = FileRssBytes(library_file.c_str());
  RssSampler sampler;
  if (plot) sampler.Start(&replayer, s.baseline_rss);
  const CpuUsage before = ProcessCpuUsage();
  s.wall_ns = replayer.Run();
  const CpuUsage after = ProcessCpuUsage();
  if (plot) {
    sampler.Stop();
    s.curve = sampler.Curve();
  }
  s.peak_rss = Above(PeakRssBytes(), s.baseline_rss);
  s.end_rss = Above(RssBytes(), s.baseline_rss);
  s.cpu_ns = after.cpu_ns - before.cpu_ns;
  s.minor_faults = after.minor_faults - before.minor_faults;
  s.release = null ? "none" : ReleaseFreeMemory();
  s.released_rss = Above(RssBytes(), s.baseline_rss);
  s.malloc_object = MallocObject();
  std::fputs(FormatSample(s).c_str(), stdout);
  return 0;
}

}  // namespace heaprec::replay
