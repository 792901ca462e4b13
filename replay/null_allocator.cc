// The allocator that allocates nothing (null_allocator.h).
#include "replay/null_allocator.h"

namespace heaprec::replay {

namespace {
alignas(4096) char dummy_block[64];
}

__attribute__((noinline)) void* NullAllocator::Alloc(const Op&) { return dummy_block; }
__attribute__((noinline)) void* NullAllocator::Realloc(void*, const Op&) { return dummy_block; }
__attribute__((noinline)) void NullAllocator::Free(void*, const Op&) {}
__attribute__((noinline)) void NullAllocator::FreeAfterRealloc(void*) {}

}  // namespace heaprec::replay
