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
// Not thread-safe; constant memory.
#ifndef HEAPREC_ANALYZERS_TEMPORARIES_H_
#define HEAPREC_ANALYZERS_TEMPORARIES_H_

#include <cstdint>

#include "analyzers/live_heap.h"
#include "format/records.h"

namespace heaprec::analyzers {

class TemporaryWatch {
 public:
  // Feeds one event with what it did to the heap. True if it released a
  // block as a temporary (c.released_block is that block: its stack is the
  // site the temporary is counted at).
  bool Step(const HeapChange& c) {
    bool temporary = false;
    if (c.released != 0) {  // the free part comes first, as heaptrack records a realloc
      temporary = have_last_ && c.released_block.stack == last_stack_ &&
                  c.released_block.size == last_size_;
      have_last_ = false;
    }
    if (c.made != 0) {
      have_last_ = true;
      last_stack_ = c.made_block.stack;
      last_size_ = c.made_block.size;
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
