// Formats 2 and 3, ChunkDecoder's own checks and delivery of the loaded
// events (format/FORMAT.md, "Blocks"): seqs continue the chunks before, block
// refs name blocks already made (format 3: refs by thread become d here, from
// each thread's recent blocks, ThreadBlocks), and the events go out in seq
// order with their blocks numbered.
//
// Internal to ChunkDecoder. Not thread-safe; allocates (ThreadBlocks, the
// error message); for tools, never the traced process.
#ifndef HEAPREC_FORMAT_INTERNAL_VARINT_EVENTS_H_
#define HEAPREC_FORMAT_INTERNAL_VARINT_EVENTS_H_

#include <cstdint>
#include <string>

#include "format/event_batch.h"
#include "format/internal/chunk_columns.h"
#include "format/thread_blocks.h"
#include "format/trace_visitor.h"

namespace heaprec::format::detail {

// Check: the first event in seq order comes after prev_seq, the last seq of
// the chunks before (the events were sorted, without repeats, when loaded).
bool CheckVarintSeqs(const Columns& k, uint64_t prev_seq, std::string* error);

// Check: block refs name blocks already made, *made before the chunk; then
// *made is the blocks made after it. Refs of forms kCallerThread and
// kOtherThread become d (k->d), in seq order, from each thread's recent
// blocks (kept in *threads, which spans chunks).
bool CheckBlocks(const fb::Chunk& c, Columns* k, uint64_t* made, ThreadBlocks* threads,
                 std::string* error);

// Deliver: the events in seq order, blocks numbered from made (the blocks
// made before the chunk), merged with the markers; returns the last event's
// seq. *out holds the events (reused from chunk to chunk).
uint64_t DeliverVarintEvents(const fb::Chunk& c, const Columns& k, uint64_t made, EventBatch* out,
                             TraceVisitor& v);

}  // namespace heaprec::format::detail

#endif  // HEAPREC_FORMAT_INTERNAL_VARINT_EVENTS_H_
