// RingWriter: the producer's side of a ring (recorder/shared/ring.h states
// the protocol): claiming a ring for a thread, appending records, waiting
// for room while the launcher drains, and handing the ring back at thread
// exit.
//
// Each thread keeps one RingCursor (in its initial-exec TLS state,
// recorder.h). A thread writes to a ring of its own, or, when every slot is
// taken, to the shared ring 0 under its spinlock. A full ring makes the
// thread wait for the launcher (nothing is dropped); a launcher that is gone
// makes the append fail, and the caller counts what it could not record.
//
// Async-signal-safe as long as a signal handler does not append on the
// thread it interrupted (the recorder's re-entry guard sees to that); no
// heap, no blocking lock but the shared ring's spinlock. Tested on a private
// region by ring_writer_test.cc.
#ifndef HEAPREC_RECORDER_PRELOAD_RING_WRITER_H_
#define HEAPREC_RECORDER_PRELOAD_RING_WRITER_H_

#include <atomic>
#include <cstdint>

#include "recorder/preload/populate.h"
#include "recorder/shared/region_layout.h"
#include "recorder/shared/ring.h"

namespace heaprec::recorder::preload {

struct RingCursor {
  Ring* ring;      // nullptr: none claimed
  uint32_t slot;   // its index in the region; 0 = the shared ring
  uint64_t limit;  // heads below this have room (a tail seen + capacity); 0 = ask
};

// Gives the calling thread (tid) a ring of region: a slot of its own unless
// shared_only (a thread that is exiting) or none is free, else the shared
// one. The caller then writes the thread's start record.
RingCursor ClaimRing(const RegionView& region, int32_t tid, bool shared_only);

// At thread exit: a ring of its own goes back to the launcher to free.
void ReleaseRing(const RegionView& region, RingCursor& cursor);

// Whether the launcher still drains, asked after each timed-out wait: by its
// pid (launcher_pid > 0), or, where the process cannot see it (heaprec -p
// from the host into a container's PID namespace passes 0), by its clock
// moving (RegionHeader::launcher_clock_ns): still 100 waits in a row means
// gone. seen and still: the caller's, zero at first.
bool LauncherAlive(const RegionHeader& h, int32_t launcher_pid, uint64_t& seen, uint32_t& still);

// Waits until the ring has room for the record at head and notes in
// cursor.limit up to where it has. False if the launcher (launcher_pid) is
// gone.
bool WaitForSpace(const RegionView& region, int32_t launcher_pid, RingCursor& cursor,
                  uint64_t head);

// Makes sure the next n appends to the thread's own ring find room without
// waiting (waits now if needed). Call before taking the seqs those records
// carry: a seq taken and not yet written holds the launcher's emission of
// every thread's records (region_reader.h), so a producer that waited for
// room while holding one stalled the others' records too (churn on 2
// threads: ~600 such stalls of ~3 ms each in a 1.5 s run). The shared ring 0
// is left alone: its room is shared, and its producers wait under its lock.
// False if the launcher is gone (the append that follows fails and counts).
inline bool ReserveRoom(const RegionView& region, int32_t launcher_pid, RingCursor& cursor,
                        uint64_t n) {
  if (cursor.ring == nullptr || cursor.slot == 0) return true;
  const uint64_t head = cursor.ring->head.load(std::memory_order_relaxed);
  return head + n <= cursor.limit || WaitForSpace(region, launcher_pid, cursor, head + n - 1);
}

// Records ahead of head whose cache line each append asks for, for writing.
// The launcher read those lines a lap ago, so writing them needs them back
// from its core: asked for early, that transfer overlaps the program's work
// instead of stalling the next locked instruction (the seq fetch_add), which
// waits for every pending store. Measured on alloc_heavy: 1.24 s -> 0.96 s
// (docs/BENCHMARKS.md).
inline constexpr uint64_t kPrefetchAhead = 8;
// On a ring's first lap, its pages are mapped this many records ahead, this
// many at a time (populate.h).
inline constexpr uint64_t kPopulateRecords = 1024;  // 48 KiB

inline void PrefetchForWrite(const void* p) {
#if defined(__x86_64__)
  asm volatile("prefetchw %0" ::"m"(*static_cast<const char*>(p)));  // a NOP before Broadwell
#else
  __builtin_prefetch(p, 1, 3);
#endif
}

void LockSharedRing(Ring& ring);
inline void UnlockSharedRing(Ring& ring) { ring.lock.store(0, std::memory_order_release); }

// Appends one record filled in place by fill(RawRecord&), which must write
// every field. False (fill not called) if there was no room: the launcher
// is gone.
//
// The tail the launcher advances is read only when head reaches the limit
// seen last time (the tail only grows, so the limit stays a safe bound):
// most appends touch no line the launcher writes.
template <typename Fill>
inline bool AppendWith(const RegionView& region, int32_t launcher_pid, RingCursor& cursor,
                       Fill fill) {
  Ring& ring = *cursor.ring;
  const bool shared = cursor.slot == 0;
  if (shared) {
    LockSharedRing(ring);
    region.header()->counters.shared_ring_records.fetch_add(1, std::memory_order_relaxed);
  }
  const uint64_t head = ring.head.load(std::memory_order_relaxed);
  const bool room = head < cursor.limit || WaitForSpace(region, launcher_pid, cursor, head);
  if (room) {
    fill(RecordAt(ring, head));
    Publish(ring, head + 1);
    PrefetchForWrite(&RecordAt(ring, head + kPrefetchAhead));
    if ((head & (kPopulateRecords - 1)) == 0 && head + 2 * kPopulateRecords <= kRingRecords) {
      PopulateForWrite(&ring.records[head + kPopulateRecords],
                       kPopulateRecords * sizeof(RawRecord));
    }
  }
  if (shared) UnlockSharedRing(ring);
  return room;
}

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_RING_WRITER_H_
