// SystemAllocator: the replay policy that calls the process's own malloc
// family and operators new/delete, exactly the kind each op recorded. In a
// bench worker these resolve to the LD_PRELOADed allocator (or glibc).
//
// Where a call cannot be made as recorded, the nearest equivalent is:
// pvalloc -> memalign(page, size rounded up to pages) (what glibc's pvalloc
// does; jemalloc exports no pvalloc); reallocarray -> realloc (glibc's
// reallocarray does not go through a preloaded realloc); free_sized and
// free_aligned_sized -> free (glibc 2.36 has neither).
// calloc's element count is not recorded: calloc(1, size).
// Thread-safe as the allocator is; inline, so the replay loop has no extra call.
#ifndef HEAPREC_REPLAY_SYSTEM_ALLOCATOR_H_
#define HEAPREC_REPLAY_SYSTEM_ALLOCATOR_H_

#include <malloc.h>

#include <cstdlib>
#include <new>

#include "format/api.h"
#include "replay/compiled_ops.h"

namespace heaprec::replay {

struct SystemAllocator {
  static void* Alloc(const Op& op) {
    using format::Api;
    const size_t size = op.size;
    const size_t align = size_t{1} << op.align_log2;
    const std::align_val_t al{align};
    switch (static_cast<Api>(op.api)) {
      case Api::kMalloc:
        return malloc(size);
      case Api::kCalloc:
        return calloc(1, size);
      case Api::kValloc:
        return valloc(size);
      case Api::kPvalloc:
        return memalign(4096, (size + 4095) & ~size_t{4095});
      case Api::kNew:
        return ::operator new(size);
      case Api::kNewArray:
        return ::operator new[](size);
      case Api::kNewNothrow:
        return ::operator new(size, std::nothrow);
      case Api::kNewArrayNothrow:
        return ::operator new[](size, std::nothrow);
      case Api::kPosixMemalign: {
        void* p = nullptr;
        return posix_memalign(&p, align < sizeof(void*) ? sizeof(void*) : align, size) == 0
                   ? p
                   : nullptr;
      }
      case Api::kAlignedAlloc:
        return aligned_alloc(align, size);
      case Api::kMemalign:
        return memalign(align, size);
      case Api::kNewAligned:
        return ::operator new(size, al);
      case Api::kNewArrayAligned:
        return ::operator new[](size, al);
      case Api::kNewAlignedNothrow:
        return ::operator new(size, al, std::nothrow);
      case Api::kNewArrayAlignedNothrow:
        return ::operator new[](size, al, std::nothrow);
      default:
        return malloc(size);  // an allocation kind newer than this build
    }
  }

  static void* Realloc(void* p, const Op& op) { return realloc(p, op.size); }

  static void Free(void* p, const Op& op) {
    using format::Api;
    const size_t size = op.size;
    const std::align_val_t al{size_t{1} << op.align_log2};
    switch (static_cast<Api>(op.api)) {
      case Api::kDelete:
        return ::operator delete(p);
      case Api::kDeleteArray:
        return ::operator delete[](p);
      case Api::kDeleteSized:
        return ::operator delete(p, size);
      case Api::kDeleteArraySized:
        return ::operator delete[](p, size);
      case Api::kDeleteNothrow:
        return ::operator delete(p, std::nothrow);
      case Api::kDeleteArrayNothrow:
        return ::operator delete[](p, std::nothrow);
      case Api::kDeleteAligned:
        return ::operator delete(p, al);
      case Api::kDeleteArrayAligned:
        return ::operator delete[](p, al);
      case Api::kDeleteSizedAligned:
        return ::operator delete(p, size, al);
      case Api::kDeleteArraySizedAligned:
        return ::operator delete[](p, size, al);
      case Api::kDeleteAlignedNothrow:
        return ::operator delete(p, al, std::nothrow);
      case Api::kDeleteArrayAlignedNothrow:
        return ::operator delete[](p, al, std::nothrow);
      default:  // free, free_sized, free_aligned_sized, newer kinds
        return free(p);
    }
  }

  static void FreeAfterRealloc(void* p) { free(p); }
};

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_SYSTEM_ALLOCATOR_H_
