// Names and families of the allocation functions (see api.h).
#include "format/api.h"

namespace heaprec::format {

Family FamilyOf(Api api) {
  switch (api) {
    case Api::kMalloc:
    case Api::kCalloc:
    case Api::kValloc:
    case Api::kPvalloc:
    case Api::kPosixMemalign:
    case Api::kAlignedAlloc:
    case Api::kMemalign:
    case Api::kRealloc:
    case Api::kReallocarray:
    case Api::kFree:
    case Api::kFreeSized:
    case Api::kFreeAlignedSized:
      return Family::kMalloc;
    case Api::kNew:
    case Api::kNewNothrow:
    case Api::kNewAligned:
    case Api::kNewAlignedNothrow:
    case Api::kDelete:
    case Api::kDeleteSized:
    case Api::kDeleteNothrow:
    case Api::kDeleteAligned:
    case Api::kDeleteSizedAligned:
    case Api::kDeleteAlignedNothrow:
      return Family::kNew;
    case Api::kNewArray:
    case Api::kNewArrayNothrow:
    case Api::kNewArrayAligned:
    case Api::kNewArrayAlignedNothrow:
    case Api::kDeleteArray:
    case Api::kDeleteArraySized:
    case Api::kDeleteArrayNothrow:
    case Api::kDeleteArrayAligned:
    case Api::kDeleteArraySizedAligned:
    case Api::kDeleteArrayAlignedNothrow:
      return Family::kNewArray;
  }
  return Family::kUnknown;
}

const char* ApiName(Api api) {
  switch (api) {
    case Api::kMalloc:
      return "malloc";
    case Api::kCalloc:
      return "calloc";
    case Api::kValloc:
      return "valloc";
    case Api::kPvalloc:
      return "pvalloc";
    case Api::kNew:
      return "operator new";
    case Api::kNewArray:
      return "operator new[]";
    case Api::kNewNothrow:
      return "operator new(nothrow)";
    case Api::kNewArrayNothrow:
      return "operator new[](nothrow)";
    case Api::kPosixMemalign:
      return "posix_memalign";
    case Api::kAlignedAlloc:
      return "aligned_alloc";
    case Api::kMemalign:
      return "memalign";
    case Api::kNewAligned:
      return "operator new(align_val_t)";
    case Api::kNewArrayAligned:
      return "operator new[](align_val_t)";
    case Api::kNewAlignedNothrow:
      return "operator new(align_val_t, nothrow)";
    case Api::kNewArrayAlignedNothrow:
      return "operator new[](align_val_t, nothrow)";
    case Api::kRealloc:
      return "realloc";
    case Api::kReallocarray:
      return "reallocarray";
    case Api::kFree:
      return "free";
    case Api::kDelete:
      return "operator delete";
    case Api::kDeleteArray:
      return "operator delete[]";
    case Api::kDeleteSized:
      return "operator delete(size_t)";
    case Api::kDeleteArraySized:
      return "operator delete[](size_t)";
    case Api::kDeleteNothrow:
      return "operator delete(nothrow)";
    case Api::kDeleteArrayNothrow:
      return "operator delete[](nothrow)";
    case Api::kFreeSized:
      return "free_sized";
    case Api::kDeleteAligned:
      return "operator delete(align_val_t)";
    case Api::kDeleteArrayAligned:
      return "operator delete[](align_val_t)";
    case Api::kDeleteSizedAligned:
      return "operator delete(size_t, align_val_t)";
    case Api::kDeleteArraySizedAligned:
      return "operator delete[](size_t, align_val_t)";
    case Api::kDeleteAlignedNothrow:
      return "operator delete(align_val_t, nothrow)";
    case Api::kDeleteArrayAlignedNothrow:
      return "operator delete[](align_val_t, nothrow)";
    case Api::kFreeAlignedSized:
      return "free_aligned_sized";
  }
  return "unknown";
}

}  // namespace heaprec::format
