// Which allocation function an event came from, and what follows from it.
//
// The numeric values are part of the trace format (format/FORMAT.md) and never
// change. They are grouped in ranges so that a reader can tell an event's kind
// and which sparse columns it uses even for a value a newer recorder added:
//   1..47    allocation              48..63   allocation with an alignment
//   64..79   realloc family (has an old address)
//   96..111  free                    112..127 free with an alignment
// 0 and 128..255 are invalid.
//
// Thread-safe, signal-safe, never allocates (plain functions over constants),
// so the preload library may use it.
#ifndef HEAPREC_FORMAT_API_H_
#define HEAPREC_FORMAT_API_H_

#include <cstdint>

namespace heaprec::format {

// The address of the outermost node (StackNode::address) of a stack the
// recorder cut at its depth limit (heaprec --depth): the frames beyond it were
// not recorded. Analyses name it "[truncated]", so the cut stacks group under
// one root. No return address is this low (page 0 is never mapped).
inline constexpr uint64_t kTruncatedFrameAddress = 1;

enum class Api : uint8_t {
  kMalloc = 1,
  kCalloc = 2,
  kValloc = 3,
  kPvalloc = 4,
  kNew = 5,              // operator new(size_t)
  kNewArray = 6,         // operator new[](size_t)
  kNewNothrow = 7,       // operator new(size_t, nothrow_t)
  kNewArrayNothrow = 8,  // operator new[](size_t, nothrow_t)

  kPosixMemalign = 48,
  kAlignedAlloc = 49,
  kMemalign = 50,
  kNewAligned = 51,  // operator new(size_t, align_val_t)
  kNewArrayAligned = 52,
  kNewAlignedNothrow = 53,
  kNewArrayAlignedNothrow = 54,

  kRealloc = 64,
  kReallocarray = 65,

  kFree = 96,
  kDelete = 97,       // operator delete(void*)
  kDeleteArray = 98,  // operator delete[](void*)
  kDeleteSized = 99,  // operator delete(void*, size_t)
  kDeleteArraySized = 100,
  kDeleteNothrow = 101,  // operator delete(void*, nothrow_t)
  kDeleteArrayNothrow = 102,
  kFreeSized = 103,  // C23 free_sized

  kDeleteAligned = 112,  // operator delete(void*, align_val_t)
  kDeleteArrayAligned = 113,
  kDeleteSizedAligned = 114,
  kDeleteArraySizedAligned = 115,
  kDeleteAlignedNothrow = 116,
  kDeleteArrayAlignedNothrow = 117,
  kFreeAlignedSized = 118,  // C23 free_aligned_sized
};

enum class EventKind : uint8_t {
  kInvalid = 0,
  kAlloc = 1,    // address = the new block (0 if the call failed)
  kRealloc = 2,  // old_address -> address; see FORMAT.md for NULL and size 0
  kFree = 3,     // address = the block released
};

// Which deallocation family a block belongs to, for mismatch checks:
// malloc'd memory must go to free, new to delete, new[] to delete[].
enum class Family : uint8_t { kUnknown = 0, kMalloc, kNew, kNewArray };

constexpr EventKind KindOf(Api api) {
  const unsigned v = static_cast<unsigned>(api);
  if (v >= 1 && v <= 63) return EventKind::kAlloc;
  if (v >= 64 && v <= 79) return EventKind::kRealloc;
  if (v >= 96 && v <= 127) return EventKind::kFree;
  return EventKind::kInvalid;
}

// True if the event carries an entry in the chunk's alignment column.
constexpr bool HasAlignment(Api api) {
  const unsigned v = static_cast<unsigned>(api);
  return (v >= 48 && v <= 63) || (v >= 112 && v <= 127);
}

// True if the event carries an entry in the chunk's old_address column.
constexpr bool HasOldAddress(Api api) { return KindOf(api) == EventKind::kRealloc; }

constexpr bool IsValid(Api api) { return KindOf(api) != EventKind::kInvalid; }

// The family of the allocating or freeing function; kUnknown for values this
// build does not know.
Family FamilyOf(Api api);

// The C or C++ name of the function, e.g. "malloc", "operator new[]",
// "operator delete(void*, size_t)". "unknown" for values this build does not
// know. Static storage.
const char* ApiName(Api api);

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_API_H_
