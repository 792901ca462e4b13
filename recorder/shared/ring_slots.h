// The life of a ring slot (ring.h): claimed by a thread, retired when the
// thread exits, freed by the launcher once it has read everything the thread
// wrote. RegionHeader::slots_in_use tells the launcher which rings to look
// at; rings_owned tells producers whether they are alone (ProducerCapacity).
//
//   free --TryClaimSlot (producer)--> owned --RetireSlot (producer, at
//   thread exit)--> retired --FreeSlotIfDrained (launcher)--> free
//
// Slot 0 is the shared ring: never claimed, retired or freed; threads that
// find no free slot write there under its spinlock.
//
// Header-only, no allocation, async-signal-safe; both sides include it.
#ifndef HEAPREC_RECORDER_SHARED_RING_SLOTS_H_
#define HEAPREC_RECORDER_SHARED_RING_SLOTS_H_

#include <atomic>
#include <cstdint>

#include "recorder/shared/region_layout.h"

namespace heaprec::recorder {

// Claims a free thread slot for tid (the search starts at a slot that
// depends on tid, so threads spread out). Returns the slot, or 0 when every
// one is taken. The slot is in slots_in_use before its first record.
inline uint32_t TryClaimSlot(const RegionView& region, int32_t tid) {
  Ring* rings = region.rings();
  RegionHeader* h = region.header();
  const uint32_t start = 1 + static_cast<uint32_t>(tid) % (kSlots - 1);
  for (uint32_t i = 0; i < kSlots - 1; ++i) {
    const uint32_t slot = 1 + (start - 1 + i) % (kSlots - 1);
    uint32_t expected = kSlotFree;
    if (rings[slot].state.compare_exchange_strong(expected, kSlotOwned,
                                                  std::memory_order_acq_rel)) {
      rings[slot].tid.store(tid, std::memory_order_relaxed);
      rings[slot].generation++;
      h->slots_in_use[slot / 64].fetch_or(uint64_t{1} << (slot % 64), std::memory_order_release);
      h->rings_owned.fetch_add(1, std::memory_order_relaxed);
      return slot;
    }
  }
  return 0;
}

// The owner of slot (not 0) is done with it: the launcher frees it once
// drained.
inline void RetireSlot(const RegionView& region, uint32_t slot) {
  region.rings()[slot].state.store(kSlotRetired, std::memory_order_release);
  region.header()->rings_owned.fetch_sub(1, std::memory_order_relaxed);
}

// The launcher: frees a retired slot whose ring it has read up to head, if
// nothing was written since. Out of slots_in_use first: once free, a new
// owner may claim it and set its bit again.
inline void FreeSlotIfDrained(const RegionView& region, uint32_t slot, uint64_t head) {
  Ring& ring = region.rings()[slot];
  if (ring.state.load(std::memory_order_acquire) != kSlotRetired ||
      ring.head.load(std::memory_order_acquire) != head) {
    return;
  }
  std::atomic<uint64_t>& word = region.header()->slots_in_use[slot / 64];
  const uint64_t bit = uint64_t{1} << (slot % 64);
  word.fetch_and(~bit, std::memory_order_acq_rel);
  uint32_t expected = kSlotRetired;
  if (!ring.state.compare_exchange_strong(expected, kSlotFree, std::memory_order_acq_rel)) {
    word.fetch_or(bit, std::memory_order_acq_rel);
  }
}

}  // namespace heaprec::recorder

#endif  // HEAPREC_RECORDER_SHARED_RING_SLOTS_H_
