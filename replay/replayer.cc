// Replay threads, their start gate and the clock (replayer.h).
#include "replay/replayer.h"

#include <sys/mman.h>
#include <time.h>

#include <cerrno>
#include <cstring>

namespace heaprec::replay {

namespace {

void* MapZeroed(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  std::memset(p, 0, bytes);  // fault the pages in now, not in the timed part
  return p;
}

uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

Replayer::Replayer(const Image& image, Touch touch, ThreadFn fn) : image_(image), fn_(fn) {
  state_.touch = touch;
}

Replayer::~Replayer() {
  if (started_ && !ran_) Run();  // never leave threads waiting
  if (state_.slots != nullptr) munmap(state_.slots, slots_bytes_);
  if (state_.progress != nullptr) munmap(state_.progress, progress_bytes_);
}

bool Replayer::Start(std::string* error) {
  slots_bytes_ = (image_.stats().slots + 1) * sizeof(void*);
  progress_bytes_ = (image_.threads() + 1) * sizeof(ThreadProgress);
  state_.slots = static_cast<void**>(MapZeroed(slots_bytes_));
  auto* progress = MapZeroed(progress_bytes_);
  if (state_.slots == nullptr || progress == nullptr) {
    *error = std::string("mapping the replay tables: ") + std::strerror(errno);
    return false;
  }
  state_.progress = new (progress) ThreadProgress[image_.threads() + 1];
  threads_.reserve(image_.threads());
  for (uint32_t t = 0; t < image_.threads(); ++t) {
    if (t != image_.main_thread()) threads_.emplace_back(&Replayer::ThreadMain, this, t);
  }
  started_ = true;
  return true;
}

void Replayer::ThreadMain(uint32_t t) {
  while (go_.load(std::memory_order_acquire) == 0) FutexWait(&go_, 0);
  fn_(image_, t, state_);
}

uint64_t Replayer::OpsRun() const {
  uint64_t sum = 0;
  for (uint32_t t = 0; t < image_.threads(); ++t) {
    sum += state_.progress[t].ops_run.load(std::memory_order_relaxed);
  }
  return sum;
}

uint64_t Replayer::Run() {
  ran_ = true;
  const uint64_t start = NowNs();
  go_.store(1, std::memory_order_release);
  FutexWakeAll(&go_);
  if (image_.main_thread() != kNoMainThread) fn_(image_, image_.main_thread(), state_);
  for (std::thread& th : threads_) th.join();
  const uint64_t end = NowNs();
  threads_.clear();
  return end - start;
}

}  // namespace heaprec::replay
