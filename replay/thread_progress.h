// ThreadProgress: how many ops a replay thread has completed, published only
// by the ops other threads wait for (kPublish), and the wait for it: spin
// briefly, yield a few times, then sleep on a futex. No global serialization: a thread waits
// only for the one op that made the block it is about to free or realloc.
//
// Publish and WaitFor are safe to call from any replay thread; they never
// allocate and take no lock (the futex is a sleep, not a lock). Publish costs
// one sequentially consistent store and a load when nobody waits.
#ifndef HEAPREC_REPLAY_THREAD_PROGRESS_H_
#define HEAPREC_REPLAY_THREAD_PROGRESS_H_

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>

namespace heaprec::replay {

struct alignas(64) ThreadProgress {
  std::atomic<uint32_t> done{0};     // ops completed, as last published
  std::atomic<uint32_t> waiters{0};  // threads asleep (or about to sleep) on done
  std::atomic<uint64_t> ops_run{0};  // for --plot's sampler: every 256 ops, relaxed
};

inline void FutexWait(std::atomic<uint32_t>* word, uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, nullptr,
          nullptr, 0);
}

inline void FutexWakeAll(std::atomic<uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr,
          nullptr, 0);
}

// Called by the owning thread after its op number done - 1 ran.
inline void Publish(ThreadProgress& p, uint32_t done) {
  // seq_cst store then load, against WaitFor's increment then load: either
  // the waiter sees the new count or this thread sees the waiter.
  p.done.store(done, std::memory_order_seq_cst);
  if (p.waiters.load(std::memory_order_seq_cst) != 0) FutexWakeAll(&p.done);
}

// Spins briefly, then yields (with more replay threads than cores the thread
// waited for is often runnable but not running: yielding lets it run without
// a futex round trip), then sleeps.
inline void WaitFor(ThreadProgress& p, uint32_t needed) {
  constexpr int kSpins = 200;
  for (int i = 0; i < kSpins; ++i) {
    if (p.done.load(std::memory_order_acquire) >= needed) return;
    __builtin_ia32_pause();
  }
  constexpr int kYields = 8;
  for (int i = 0; i < kYields; ++i) {
    if (p.done.load(std::memory_order_acquire) >= needed) return;
    sched_yield();
  }
  for (;;) {
    p.waiters.fetch_add(1, std::memory_order_seq_cst);
    const uint32_t seen = p.done.load(std::memory_order_seq_cst);
    if (seen < needed) FutexWait(&p.done, seen);
    p.waiters.fetch_sub(1, std::memory_order_relaxed);
    if (p.done.load(std::memory_order_acquire) >= needed) return;
  }
}

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_THREAD_PROGRESS_H_
