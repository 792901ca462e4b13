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

// Check and resolve, the last check: block refs name blocks already made,
// *made before the chunk; then *made is the blocks made after it. Refs of
// forms kCallerThread and kOtherThread are looked up, in seq order, in each
// thread's recent blocks (kept in *threads, which spans chunks). As it
// checks, writes the events in seq order, as they are delivered (blocks
// numbered, times in ns, weights), into (*pieces)[0, *p) (SizePieces).
bool ResolveEvents(const fb::Chunk& c, Columns* k, uint64_t* made, ThreadBlocks* threads,
                   std::vector<EventBatch>* pieces, size_t* p, std::string* error);

}  // namespace heaprec::format::detail

#endif  // HEAPREC_FORMAT_INTERNAL_VARINT_EVENTS_H_
