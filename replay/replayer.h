// Replayer: runs a compiled trace with one thread per recorded thread. The
// trace's main thread (image.main_thread(), trace_compiler.h) runs on the
// thread that calls Run, the others each on a thread of their own, so that
// an allocator serves each as it served the program (glibc: the main thread
// from the main arena, grown by brk; other threads from arenas of their
// own). Callers that want that call Run from the process's main thread (the
// bench worker does).
//
//   Replayer r(image, Touch::kPage, &ReplayThread<SystemAllocator>);
//   if (!r.Start(&error)) ...   // tables mapped, other threads created and waiting
//   uint64_t wall_ns = r.Run(); // the timed part: release, run main's ops here, join
//
// The slot table and the progress counters come from mmap and are touched
// in Start, and every thread exists before the clock starts, so the timed
// part allocates nothing of its own. Start and Run are called once each,
// from one thread. Blocks still live at the end stay allocated (as the
// traced program left them); slots() shows them.
#ifndef HEAPREC_REPLAY_REPLAYER_H_
#define HEAPREC_REPLAY_REPLAYER_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "replay/compiled_image.h"
#include "replay/replay_loop.h"

namespace heaprec::replay {

class Replayer {
 public:
  using ThreadFn = void (*)(const Image&, uint32_t, ReplayState&);

  Replayer(const Image& image, Touch touch, ThreadFn fn);
  ~Replayer();
  Replayer(const Replayer&) = delete;
  Replayer& operator=(const Replayer&) = delete;

  bool Start(std::string* error);
  uint64_t Run();

  void* const* slots() const { return state_.slots; }
  // Ops run so far, all threads (every 256 ops per thread; --plot's sampler).
  uint64_t OpsRun() const;

 private:
  void ThreadMain(uint32_t t);

  const Image& image_;
  ThreadFn fn_;
  ReplayState state_;
  size_t slots_bytes_ = 0, progress_bytes_ = 0;
  std::atomic<uint32_t> go_{0};
  bool started_ = false, ran_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_REPLAYER_H_
