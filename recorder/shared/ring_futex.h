// Sleeping and waking on a ring's `waiting` word (region_layout.h), shared
// between the traced process and the launcher: a producer whose ring is full
// sleeps there instead of spinning (spinning took the CPU the launcher needs
// to empty the ring), and the launcher wakes it after moving the ring's tail.
//
// The handshake (both sides sequentially consistent, so one of them sees the
// other): the producer stores waiting = 1, then reads tail, and sleeps only if
// the ring is still full; the launcher stores tail, then swaps waiting to 0
// and wakes if it was 1. A wake that comes before the sleep makes the sleep
// return at once (the word is no longer 1). Sleeps are bounded by a timeout,
// so a launcher that died is noticed by the caller.
//
// Header-only, no allocation, async-signal-safe (raw futex syscalls); the
// futexes are process-shared (the region is a MAP_SHARED file).
#ifndef HEAPREC_RECORDER_SHARED_RING_FUTEX_H_
#define HEAPREC_RECORDER_SHARED_RING_FUTEX_H_

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>

namespace heaprec::recorder {

// Sleeps while *word == 1, at most timeout_ns. True if woken (or the word
// had already changed), false on timeout or signal.
inline bool SleepWhileWaiting(std::atomic<uint32_t>* word, uint64_t timeout_ns) {
  const timespec t = {static_cast<time_t>(timeout_ns / 1000000000u),
                      static_cast<long>(timeout_ns % 1000000000u)};
  const long r =
      syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT, 1u, &t, nullptr, 0);
  return r == 0 || word->load(std::memory_order_relaxed) != 1;
}

// Wakes every producer sleeping on *word, if one announced itself.
inline void WakeWaiting(std::atomic<uint32_t>* word) {
  if (word->exchange(0, std::memory_order_seq_cst) == 1) {
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
  }
}

}  // namespace heaprec::recorder

#endif  // HEAPREC_RECORDER_SHARED_RING_FUTEX_H_
