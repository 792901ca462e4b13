// TemporaryWatch: heaptrack's temporaries, exactly as heaptrack_print counts
// them, one event at a time. heaptrack keys an allocation by its (call
// stack, size) pair, not by its block, and calls a free temporary when the
// block it releases has the same pair as the latest allocation and nothing
// was allocated or freed in between. So a loop that allocates two blocks of
// one site and size and frees the older one after the second allocation
// frees a "temporary" too, and a realloc (heaptrack sees the free of the old
// block, then the allocation of the new) frees a temporary when it follows
// the allocation of the block it resizes.
//
// Frees of blocks the trace never saw made are no events for it (heaptrack
// drops them), nor is free(NULL). One difference remains, and is documented
// where temporaries are reported: realloc(p, 0) releases p here; heaptrack
// records nothing for it (the block stays live for heaptrack).
// LiveHeap runs one for every pass and says what it found in each event's
// HeapChange::temporary, which the analyzers read (summary, hot sites, the
// page's range profile).
// Not thread-safe; constant memory.
#ifndef HEAPREC_ANALYZERS_TEMPORARIES_H_
#define HEAPREC_ANALYZERS_TEMPORARIES_H_

#include <cstdint>

#include "analyzers/block_map.h"

namespace heaprec::analyzers {

class TemporaryWatch {
 public:
  // Feeds one event with what it did to the heap: the block it released
  // (released: its number, 0 = none) and the block it made (made: the
  // same). True if it released a block as a temporary (released_block: its
  // stack is the site the temporary is counted at).
  bool Step(uint64_t released, const LiveBlock& released_block, uint64_t made,
            const LiveBlock& made_block) {
    bool temporary = false;
    if (released != 0) {  // the free part comes first, as heaptrack records a realloc
      temporary =
          have_last_ && released_block.stack == last_stack_ && released_block.size == last_size_;
      have_last_ = false;
    }
    if (made != 0) {
      have_last_ = true;
      last_stack_ = made_block.stack;
      last_size_ = made_block.size;
    }
    return temporary;
  }

 private:
  friend class AnalysisState;  // analysis_state.h
  bool have_last_ = false;
  uint32_t last_stack_ = 0;
  uint64_t last_size_ = 0;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_TEMPORARIES_H_
