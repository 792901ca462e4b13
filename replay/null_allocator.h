// NullAllocator: the replay policy that allocates nothing. Replaying with it
// (and Touch::kNone) measures the replayer's own cost: the loop, the
// dispatch, slot stores and cross-thread waits.
//
// Every call returns the same static address; calls are out of line so the
// compiler cannot drop them. Thread-safe; never allocates.
#ifndef HEAPREC_REPLAY_NULL_ALLOCATOR_H_
#define HEAPREC_REPLAY_NULL_ALLOCATOR_H_

#include "replay/compiled_ops.h"

namespace heaprec::replay {

struct NullAllocator {
  static void* Alloc(const Op& op);
  static void* Realloc(void* p, const Op& op);
  static void Free(void* p, const Op& op);
  static void FreeAfterRealloc(void* p);
};

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_NULL_ALLOCATOR_H_
