// The producer's side of a ring: claims, waits, release (ring_writer.h).
#include "recorder/preload/ring_writer.h"

#include <sched.h>
#include <signal.h>

#include <cerrno>

#include "recorder/shared/ring_slots.h"

namespace heaprec::recorder::preload {

RingCursor ClaimRing(const RegionView& region, int32_t tid, bool shared_only) {
  const uint32_t slot = shared_only ? 0 : TryClaimSlot(region, tid);
  Ring& ring = region.rings()[slot];
  if (slot != 0) {
    // Its first lap's pages are mapped ahead of the writes (AppendWith).
    const uint64_t head = ring.head.load(std::memory_order_relaxed);
    if (head < kRingRecords) {
      PopulateForWrite(&ring.records[head & ~(kPopulateRecords - 1)],
                       kPopulateRecords * sizeof(RawRecord));
    }
  }
  return {&ring, slot, 0};
}

void ReleaseRing(const RegionView& region, RingCursor& cursor) {
  if (cursor.ring != nullptr && cursor.slot != 0) RetireSlot(region, cursor.slot);
  cursor = {nullptr, 0, 0};
}

void LockSharedRing(Ring& ring) {
  uint32_t expected = 0;
  while (!ring.lock.compare_exchange_weak(expected, 1, std::memory_order_acquire)) {
    expected = 0;
    sched_yield();
  }
}

bool LauncherAlive(const RegionHeader& h, int32_t launcher_pid, uint64_t& seen, uint32_t& still) {
  if (launcher_pid > 0) return !(kill(launcher_pid, 0) != 0 && errno == ESRCH);
  const uint64_t clock = h.launcher_clock_ns.load(std::memory_order_relaxed);
  if (clock != seen) {
    seen = clock;
    still = 0;
    return true;
  }
  return ++still < 100;
}

// A short spin (the launcher is usually mid-drain), then sleeps on the ring's
// futex until the launcher moves tail. A sleep that times out means the
// launcher has not drained for 10 ms: then check that it lives.
bool WaitForSpace(const RegionView& region, int32_t launcher_pid, RingCursor& cursor,
                  uint64_t head) {
  constexpr uint64_t kSleepNs = 10 * 1000 * 1000;
  RegionHeader& h = *region.header();
  Ring& ring = *cursor.ring;
  const uint64_t capacity = ProducerCapacity(h.rings_owned.load(std::memory_order_relaxed));
  uint64_t seen = 0;
  uint32_t still = 0;
  for (uint32_t round = 0;; ++round) {
    const uint64_t tail = TailForProducer(ring);
    if (head - tail < capacity) {
      cursor.limit = tail + capacity;
      return true;
    }
    if (h.launcher_gone.load(std::memory_order_relaxed)) return false;
    if (round < 64) {
      __builtin_ia32_pause();
      continue;
    }
    AnnounceWaiting(ring);
    if (head - TailForProducer(ring) < capacity) continue;
    if (!SleepWhileWaiting(ring, kSleepNs) && !LauncherAlive(h, launcher_pid, seen, still)) {
      h.launcher_gone.store(1, std::memory_order_relaxed);
      return false;
    }
  }
}

}  // namespace heaprec::recorder::preload
