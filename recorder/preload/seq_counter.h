// The region's sequence numbers: one total order over every record of every
// thread of a process image (allocations take theirs after the real call
// returns, frees before the real call runs, so no free ever precedes the
// allocation it frees).
//
// While one thread alone has claimed a ring (RegionHeader::seq_mode
// kSeqSolo), it counts in solo_seq with plain loads and stores: a locked
// fetch_add waits for every store the thread has pending (ring lines, the
// allocator's own); BM_WriteEvent 15.3 -> 12.6 ns. solo_busy marks the few
// instructions between reading the mode and storing the count. The second
// thread to claim a ring switches for good (SwitchToSharedSeq): it sets the
// mode to kSeqSwitching, runs membarrier() so that the solo thread's busy
// store is visible and its later mode loads see the switch, waits out the busy
// window (at most ~10 ms; a solo thread stalled inside it, e.g. by a signal
// handler that blocks, makes the switcher skip kSeqSkipOnStall seqs so that it
// may still take the count it read) and moves the count to next_seq, which
// every thread then takes with fetch_add. Without membarrier (RegisterMembarrier
// false) the region starts in shared mode (process_region.cc).
//
// Thread-safe and async-signal-safe as stated per function; never allocates.
// Used by the recorder (recorder.cc, control_records.cc) and tested on a
// private region by seq_counter_test.cc.
#ifndef HEAPREC_RECORDER_PRELOAD_SEQ_COUNTER_H_
#define HEAPREC_RECORDER_PRELOAD_SEQ_COUNTER_H_

#include <atomic>
#include <cstdint>

#include "recorder/shared/region_layout.h"

namespace heaprec::recorder::preload {

// Seqs skipped when the solo thread stays inside its busy window.
inline constexpr uint64_t kSeqSkipOnStall = uint64_t{1} << 20;

// Whether this process may fence every thread with membarrier() (the switch
// from solo to shared counting needs it). Registering is per process image,
// again after fork. errno preserved.
bool RegisterMembarrier();

// The rest of TakeSeq: waits for a switch in progress, then counts shared.
uint64_t TakeSharedSeq(RegionHeader& h);

// Takes the next seq. Every taken seq must be written (a kNop record if there
// is nothing to write). Async-signal-safe.
inline uint64_t TakeSeq(RegionHeader& h) {
  if (h.seq_mode.load(std::memory_order_relaxed) == kSeqSolo) {
    h.solo_busy.store(1, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);  // membarrier() orders it for the switcher
    if (h.seq_mode.load(std::memory_order_relaxed) == kSeqSolo) {
      const uint64_t seq = h.solo_seq.load(std::memory_order_relaxed);
      h.solo_seq.store(seq + 1, std::memory_order_relaxed);
      h.solo_busy.store(0, std::memory_order_release);
      return seq;
    }
    h.solo_busy.store(0, std::memory_order_release);
  }
  return TakeSharedSeq(h);
}

// Ends solo counting: the first thread here moves the count to next_seq; any
// other waits until it has. Call before the calling thread's first seq when
// it is not the first thread to record (ring_writer's claims count them).
void SwitchToSharedSeq(RegionHeader& h);

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_SEQ_COUNTER_H_
