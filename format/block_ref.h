// The small codes of a format 2 and 3 chunk's event columns that the writer
// (ChunkBuilder) and the reader (ChunkDecoder) must agree on, defined once:
// the flag bit of the `api` byte and the forms of a block ref
// (format/FORMAT.md, "Events" and "Blocks").
//
// Constants only: thread- and signal-safe, no allocation.
#ifndef HEAPREC_FORMAT_BLOCK_REF_H_
#define HEAPREC_FORMAT_BLOCK_REF_H_

#include <cstdint>

namespace heaprec::format {

// The `api` byte of formats 2 and 3: bits 0..6 are the Api (which function
// was called); bit 7, kApiNoBlockFlag, is set when an alloc or realloc
// returned no block (the call failed, or realloc(p, 0) freed), and never on a
// free. Format 1's api byte is the Api alone.
inline constexpr uint8_t kApiMask = 0x7f;
inline constexpr uint8_t kApiNoBlockFlag = 0x80;

// How a free or realloc names, in `block_ref`, the block it released or was
// passed (`ref_form`, one byte per ref; an empty column means all
// kAnyThread). Each form's values are stored as zigzag changes from the
// previous value of the same form in column order.
enum class BlockRefForm : uint8_t {
  // d, over all threads' blocks: the d-th most recently made block before
  // this event in seq order (1 = the latest); d = 0 names an address the
  // trace never saw made, given in `raw_address`. Formats 2 and 3.
  kAnyThread = 0,
  // k: the calling thread's k-th most recent block (k >= 1; 1 = the last it
  // made), while among its last ThreadBlocks::kWindow. Format 3.
  kCallerThread = 1,
  // i: thread m's i-th block (i >= 1), m another thread, given in
  // `ref_thread_v` as zigzag(m - calling thread), while among m's last
  // ThreadBlocks::kWindow. Format 3.
  kOtherThread = 2,
};

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_BLOCK_REF_H_
