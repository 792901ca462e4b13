// One ring of the shared region: the fixed-size records a traced thread
// writes and the launcher reads, and the protocol between the two sides,
// stated once here and used by both (recorder/preload/ring_writer.h writes,
// recorder/launcher/region_reader.cc reads).
//
// The protocol:
// - Records: one producer per ring (the thread owning the slot; for the
//   shared slot 0, whoever holds its spinlock) and one consumer (the
//   launcher). head counts records written, tail records read; both only
//   grow, and record i lives at records[i % kRingRecords].
// - Writing: the producer fills RecordAt(ring, head) and then Publish()es
//   head + 1 (release); it may do so only while head - tail is below its
//   capacity (ProducerCapacity). It reads tail rarely: a tail seen once
//   bounds the room for many records (tail never goes back).
// - Reading: the consumer takes Readable() records (head acquired, so the
//   records are complete), copies them out, then Consumed() them: tail is
//   stored (sequentially consistent) and a sleeping producer is woken.
// - Waiting for room: the producer spins briefly, then AnnounceWaiting()
//   (waiting = 1, seq_cst), reads tail again and sleeps on the futex only if
//   the ring is still full (SleepWhileWaiting, bounded). The consumer stores
//   tail, then swaps waiting to 0 and wakes if it was 1. Both sides are
//   sequentially consistent, so one of them sees the other: a wake before the
//   sleep makes the sleep return at once. A sleep that times out lets the
//   producer check that the launcher still lives. A producer waits before it
//   takes the seq of the record it will write (ReserveRoom in
//   recorder/preload/ring_writer.h), never while holding one.
// - Slot life (ring_slots.h): free -> owned (a thread claimed it) ->
//   retired (the thread exited) -> free (the consumer, once it drained it).
//
// Header-only, trivially constructible data and std::atomic, no allocation,
// no libstdc++ runtime, async-signal-safe (raw futex system calls): the
// preload library includes it. The futexes are process-shared (the region
// is a MAP_SHARED file).
#ifndef HEAPREC_RECORDER_SHARED_RING_H_
#define HEAPREC_RECORDER_SHARED_RING_H_

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>

namespace heaprec::recorder {

inline constexpr uint32_t kRingRecords = 32768;  // per ring, a power of two
// Records a producer may have unread in its ring while other threads own
// rings too; a lone thread may fill all kRingRecords. One thread gets the
// room to run on while the launcher compresses a chunk (alloc_heavy: 947 ->
// 831 ms; it waited on a full ring ~100 times with 16384); several threads
// on few cores run better when they wait early and leave the launcher its
// time (mt_handoff: 1142 -> 1250 ms with 32768 for all).
inline constexpr uint32_t kRingSharedCapacity = 16384;

// One record of a ring: an allocation event (api is a format::Api value) or a
// control record (api is a Control value).
struct RawRecord {
  uint64_t seq;      // from the region's seq counter; every taken seq is written
  uint64_t time_ns;  // CLOCK_MONOTONIC - RegionHeader::start_monotonic_ns
  uint64_t address;  // block, or control payload
  uint64_t size;     // bytes, or control payload
  uint64_t extra;    // alignment (aligned APIs) or old address (realloc)
  uint32_t stack;    // stack entry (word offset in the arena); 0 = none
  uint8_t api;       // format::Api or Control
  uint8_t pad[3];
};
static_assert(sizeof(RawRecord) == 48);

enum Control : uint8_t {
  // A thread took this slot: address = tid; size and extra = its name
  // (16 bytes, NUL-padded: PackThreadName).
  kThreadStart = 200,
  // The thread was renamed: name in size and extra as above.
  kThreadName = 201,
  // A marker: address = label record index.
  kMarker = 202,
  // A seq was taken but there is nothing to record (keeps seqs gapless).
  kNop = 203,
  // The thread asks for a leak scan and waits for it
  // (RegionHeader::scans_done): address = its tid, size = the reason (a
  // format::LeakScan::Reason) | the fatal signal the process is ending on
  // << 8 (0: none) | the address of that signal's ucontext_t on the thread's
  // stack << 16 (0: none), extra = its label record index (UINT64_MAX: none).
  kLeakScanRequest = 204,
};

// A thread name (up to 15 bytes) in a control record's size and extra.
inline void PackThreadName(const char* name, RawRecord* r) {
  char buf[16] = {};
  for (int i = 0; i < 15 && name != nullptr && name[i] != '\0'; ++i) buf[i] = name[i];
  __builtin_memcpy(&r->size, buf, 8);
  __builtin_memcpy(&r->extra, buf + 8, 8);
}

enum SlotState : uint32_t {
  kSlotFree = 0,
  kSlotOwned = 1,    // a live thread writes to it
  kSlotRetired = 2,  // the thread exited; the launcher frees it once drained
};

struct alignas(64) Ring {
  // Owner's side.
  std::atomic<uint32_t> state;             // SlotState
  std::atomic<uint32_t> lock;              // slot 0 only: spinlock of its producers
  std::atomic<int32_t> tid;                // owner's tid, for the launcher's liveness check
  uint32_t generation;                     // bumped by each new owner
  alignas(64) std::atomic<uint64_t> head;  // records written (producer)
  alignas(64) std::atomic<uint64_t> tail;  // records read (launcher)
  // 1 while the producer sleeps on it (a futex, shared) for room: the
  // launcher wakes it after moving tail.
  std::atomic<uint32_t> waiting;
  alignas(64) RawRecord records[kRingRecords];
};

// --- Producer side ---------------------------------------------------------

// Unread records a producer may leave: all of the ring for a thread alone,
// kRingSharedCapacity while others own rings too.
inline uint64_t ProducerCapacity(uint32_t rings_owned) {
  return rings_owned <= 1 ? kRingRecords : kRingSharedCapacity;
}

inline RawRecord& RecordAt(Ring& ring, uint64_t index) {
  return ring.records[index & (kRingRecords - 1)];
}

// Makes every record below new_head visible to the consumer.
inline void Publish(Ring& ring, uint64_t new_head) {
  ring.head.store(new_head, std::memory_order_release);
}

// The tail as the producer must read it when it looks for room.
inline uint64_t TailForProducer(const Ring& ring) {
  return ring.tail.load(std::memory_order_seq_cst);
}

// Before sleeping for room: then read the tail again, and sleep only if the
// ring is still full.
inline void AnnounceWaiting(Ring& ring) { ring.waiting.store(1, std::memory_order_seq_cst); }

// Sleeps while the producer's announcement stands, at most timeout_ns. True
// if woken (or the consumer had already answered), false on timeout or signal.
inline bool SleepWhileWaiting(Ring& ring, uint64_t timeout_ns) {
  const timespec t = {static_cast<time_t>(timeout_ns / 1000000000u),
                      static_cast<long>(timeout_ns % 1000000000u)};
  const long r = syscall(SYS_futex, reinterpret_cast<uint32_t*>(&ring.waiting), FUTEX_WAIT, 1u, &t,
                         nullptr, 0);
  return r == 0 || ring.waiting.load(std::memory_order_relaxed) != 1;
}

// --- Consumer side ---------------------------------------------------------

// The records written and not yet read: [tail, head). A head more than a
// ring ahead (a damaged region) keeps only the last kRingRecords.
struct Readable {
  uint64_t tail;
  uint64_t head;
  uint64_t count() const { return head - tail; }
};
inline Readable ReadableRecords(const Ring& ring) {
  const uint64_t head = ring.head.load(std::memory_order_acquire);
  uint64_t tail = ring.tail.load(std::memory_order_relaxed);
  if (head - tail > kRingRecords) tail = head - kRingRecords;
  return {tail, head};
}

// Marks the records below head read, and wakes a producer asleep for room.
// Returns whether one was waiting (the ring had filled up).
inline bool Consumed(Ring& ring, uint64_t head) {
  ring.tail.store(head, std::memory_order_seq_cst);
  if (ring.waiting.exchange(0, std::memory_order_seq_cst) == 1) {
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&ring.waiting), FUTEX_WAKE, INT_MAX, nullptr,
            nullptr, 0);
    return true;
  }
  return false;
}

}  // namespace heaprec::recorder

#endif  // HEAPREC_RECORDER_SHARED_RING_H_
