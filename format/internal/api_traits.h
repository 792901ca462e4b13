// ApiTraits: what the event loops of formats 2-4 ask of an api byte (bit 7
// kApiNoBlockFlag, the Api in the rest; format/FORMAT.md), in one table
// load per event instead of KindOf's and HasAlignment's range tests:
//   kApiTraits.of[b] & kKindBits  the EventKind of b & kApiMask;
//   kAligned                      HasAlignment: an entry in the alignment column;
//   kBad                          an invalid Api, or a free that says it names
//                                 no block (a chunk with one is rejected).
// Not for format 1 (ColumnLayout::kFixed), whose api bytes have no flag.
// Header-only, constexpr: no state.
#ifndef HEAPREC_FORMAT_INTERNAL_API_TRAITS_H_
#define HEAPREC_FORMAT_INTERNAL_API_TRAITS_H_

#include <cstdint>

#include "format/api.h"
#include "format/block_ref.h"

namespace heaprec::format::detail {

struct ApiTraits {
  static constexpr uint8_t kKindBits = 3;  // the EventKind
  static constexpr uint8_t kAligned = 4;   // HasAlignment
  static constexpr uint8_t kBad = 8;       // invalid, or a free with kApiNoBlockFlag
  uint8_t of[256];
  constexpr ApiTraits() : of() {
    for (unsigned b = 0; b < 256; ++b) {
      const auto api = static_cast<Api>(b & kApiMask);
      const EventKind kind = KindOf(api);
      unsigned v = static_cast<unsigned>(kind);
      if (HasAlignment(api)) v |= kAligned;
      if (kind == EventKind::kInvalid || ((b & kApiNoBlockFlag) != 0 && kind == EventKind::kFree)) {
        v |= kBad;
      }
      of[b] = static_cast<uint8_t>(v);
    }
  }
  static constexpr EventKind Kind(uint8_t traits) {
    return static_cast<EventKind>(traits & kKindBits);
  }
};
inline constexpr ApiTraits kApiTraits;
static_assert(kApiTraits.of[static_cast<uint8_t>(Api::kMalloc)] ==
              static_cast<uint8_t>(EventKind::kAlloc));
static_assert(kApiTraits.of[kApiNoBlockFlag | static_cast<uint8_t>(Api::kRealloc)] ==
              static_cast<uint8_t>(EventKind::kRealloc));
static_assert(kApiTraits.of[static_cast<uint8_t>(Api::kDeleteSizedAligned)] ==
              (static_cast<uint8_t>(EventKind::kFree) | ApiTraits::kAligned));
static_assert(kApiTraits.of[kApiNoBlockFlag | static_cast<uint8_t>(Api::kFree)] ==
              (static_cast<uint8_t>(EventKind::kFree) | ApiTraits::kBad));
static_assert(kApiTraits.of[0] == ApiTraits::kBad && kApiTraits.of[80] == ApiTraits::kBad);

}  // namespace heaprec::format::detail

#endif  // HEAPREC_FORMAT_INTERNAL_API_TRAITS_H_
