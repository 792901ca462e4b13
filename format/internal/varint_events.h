// Formats 2 and 3, ChunkDecoder's own checks of the loaded events and their
// final form (format/FORMAT.md, "Blocks"): seqs continue the chunks before,
// block refs name blocks already made (format 3: refs by thread are looked
// up in each thread's recent blocks, ThreadBlocks), and the events are
// written in seq order with their blocks numbered, ready to deliver.
//
// Internal to ChunkDecoder. Not thread-safe; allocates (ThreadBlocks, the
// error message); for tools, never the traced process.
#ifndef HEAPREC_FORMAT_INTERNAL_VARINT_EVENTS_H_
#define HEAPREC_FORMAT_INTERNAL_VARINT_EVENTS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "format/event_batch.h"
#include "format/internal/chunk_columns.h"
#include "format/thread_blocks.h"
#include "format/trace_visitor.h"

namespace heaprec::format::detail {

// Check: the first event in seq order comes after prev_seq, the last seq of
// the chunks before (the events were sorted, without repeats, when loaded).
bool CheckVarintSeqs(const Columns& k, uint64_t prev_seq, std::string* error);

// *error = "event <i><what>"; false. Out of line and cold, as the
// messages below: the event loops that call them keep their registers for
// the common case.
__attribute__((noinline, cold)) bool EventError(size_t i, const char* what, std::string* error);
// "event <i> names block ref <d> of only <made> made"
__attribute__((noinline, cold)) bool RefBeyondError(size_t i, uint64_t d, uint64_t made,
                                                    std::string* error);

// What Resolve finds for an event.
struct Resolved {
  uint64_t block = 0;      // Event::block
  uint64_t old_block = 0;  // Event::old_block
  uint64_t passed = 0;     // the address passed, for a ref to a block never made (d = 0)
};

// Event i (column index, for messages) in seq order, after every event
// before it: the block its ref names, if it has one (a free's or realloc's:
// form, d or k or i, maker; passed for d = 0), and the block it makes,
// numbered *made + 1 (then *made is one more) and noted as its thread's in
// *threads. False, with *error, for a ref that names no block.
__attribute__((always_inline)) inline bool Resolve(size_t i, EventKind kind, uint8_t api_byte,
                                                   uint32_t thread, bool has_ref, BlockRefForm form,
                                                   uint64_t d, uint32_t maker, uint64_t passed,
                                                   ThreadBlocks* threads, uint64_t* made,
                                                   Resolved* r, std::string* error) {
  uint64_t released = 0;
  r->passed = 0;
  if (has_ref) {
    if (form != BlockRefForm::kAnyThread) {
      // k-th most recent of the caller's blocks, or the maker's i-th.
      released = form == BlockRefForm::kCallerThread ? threads->Recent(thread, d)
                                                     : threads->Block(maker, d);
      if (released == 0) {
        return EventError(i, " names a block its thread did not make lately", error);
      }
    } else if (d > *made) {
      return RefBeyondError(i, d, *made, error);
    } else if (d != 0) {
      released = *made - d + 1;
    } else {
      r->passed = passed;
    }
  }
  r->block = kind == EventKind::kFree ? released : 0;
  r->old_block = kind == EventKind::kRealloc ? released : 0;
  if ((kind == EventKind::kAlloc || kind == EventKind::kRealloc) &&
      (api_byte & kApiNoBlockFlag) == 0) {
    r->block = ++*made;
    threads->Made(thread, *made);
  }
  return true;
}

// Check and resolve, the last check: block refs name blocks already made,
// *made before the chunk; then *made is the blocks made after it. Refs of
// forms kCallerThread and kOtherThread are looked up, in seq order, in each
// thread's recent blocks (kept in *threads, which spans chunks). As it
// checks, writes the events in seq order, as they are delivered (blocks
// numbered, times in ns, weights), into (*pieces)[0, *p) (SizePieces).
// A chunk LoadVarintColumns resolved as it decoded (k->direct) is only
// checked here: the base block, and the first bad ref it met.
bool ResolveEvents(const fb::Chunk& c, Columns* k, uint64_t* made, ThreadBlocks* threads,
                   std::vector<EventBatch>* pieces, size_t* p, std::string* error);

}  // namespace heaprec::format::detail

#endif  // HEAPREC_FORMAT_INTERNAL_VARINT_EVENTS_H_
