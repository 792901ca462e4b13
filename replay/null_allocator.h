// NullAllocator: the replay policy that allocates nothing. Replaying with it
// (and Touch::kNone) measures the replayer's own cost: the loop, the
// dispatch, slot stores and cross-thread waits; not the call into an
// allocator, which a program pays as much as the replay.
//
// Inline: each call is an empty asm statement that takes the op and returns
// an address the compiler cannot see through (the op's own; it is never
// written, as Touch::kNone writes nothing), so the loop's work cannot be
// optimized away. Thread-safe; never allocates.
#ifndef HEAPREC_REPLAY_NULL_ALLOCATOR_H_
#define HEAPREC_REPLAY_NULL_ALLOCATOR_H_

#include "replay/compiled_ops.h"

namespace heaprec::replay {

struct NullAllocator {
  static void* Alloc(const Op& op) { return Opaque(&op); }
  static void* Realloc(void* p, const Op& op) {
    Use(p);
    return Opaque(&op);
  }
  static void Free(void* p, const Op& op) {
    Use(p);
    Use(&op);
  }
  static void FreeAfterRealloc(void* p) { Use(p); }

 private:
  static void* Opaque(const void* p) {
    void* r = const_cast<void*>(p);
    asm volatile("" : "+r"(r));
    return r;
  }
  static void Use(const void* p) { asm volatile("" : : "r"(p)); }
};

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_NULL_ALLOCATOR_H_
