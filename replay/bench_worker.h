// The hidden worker mode of heapreplay --bench: one replay in a fresh
// process, under the allocator the parent preloaded.
//
//   heapreplay --bench-worker FD NAME LIBRARY|- MARKER|- TOUCH real|null plot|noplot
//
// FD is the compiled trace image (compiled_image.h) inherited from the
// parent. The worker first forces a malloc/free pair through the allocator
// and notes the time and its CPU time (its start-up ends there,
// bench_sample.h), then checks that NAME is really the allocator serving
// malloc (allocator_runtime.h) and fails with one line if not; then maps
// the image, creates the replay threads (the trace's main thread replays
// on the worker's main thread, replayer.h), resets peak RSS, replays once
// (null: NullAllocator, nothing allocated) and prints one RunSample line
// (bench_sample.h) on stdout; with plot, RSS sampled against progress
// during the replay (rss_sampler.h). Exit 0, or 1 with one line on stderr.
#ifndef HEAPREC_REPLAY_BENCH_WORKER_H_
#define HEAPREC_REPLAY_BENCH_WORKER_H_

namespace heaprec::replay {

inline constexpr char kWorkerFlag[] = "--bench-worker";

int RunBenchWorker(int argc, char** argv);

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_BENCH_WORKER_H_
