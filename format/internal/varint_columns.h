// Formats 2 and 3, ChunkDecoder's load stage (format/FORMAT.md, "Events",
// "Blocks", "Stacks"): decodes the varint columns in one pass over the
// events, in column order (grouped by thread), all columns in step, and
// resolves them into absolute seqs, time units, sizes and stack nodes, block
// refs with their forms, and the sparse columns; then puts the events in seq
// order (seq_order.h).
//
// Internal to ChunkDecoder. Not thread-safe; allocates (the columns, reused
// from chunk to chunk); for tools, never the traced process.
#ifndef HEAPREC_FORMAT_INTERNAL_VARINT_COLUMNS_H_
#define HEAPREC_FORMAT_INTERNAL_VARINT_COLUMNS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "format/event_batch.h"
#include "format/internal/chunk_columns.h"
#include "format/thread_blocks.h"
#include "format/varint_column.h"

namespace heaprec::format::detail {

// Only the stack columns (k->stack_parent, stack_address, resolved), for a
// chunk whose events are skipped (ChunkDecoder::Skim).
bool LoadStackColumns(const fb::Chunk& c, Columns* k, std::string* error);

// Load: fills *k from the chunk (layout kVarint, kVarintRuns or
// kVarintSparse) and checks that every column has one value per event (or
// per event that has the field; format 4's groups and sparse pairs cover the
// events), that no seq repeats and that the seq runs take every thread's
// events whole. last_stack_id: the highest stack id of the chunks before
// (this chunk's base_stack_id is not trusted until CheckStacks);
// size_by_stack: each stack id's last size, which spans chunks.
// A chunk of format 3 or 4 without seq runs (one thread's events, the usual
// chunk of a single-threaded program) is resolved as it is decoded (k->direct): the
// events go straight into (*pieces) as delivered, their blocks numbered from
// `made` (the blocks made before the chunk) with *threads; ResolveEvents
// then only reports what it found.
bool LoadVarintColumns(const fb::Chunk& c, ColumnLayout layout, uint32_t last_stack_id,
                       std::vector<uint64_t>* size_by_stack, uint64_t made, ThreadBlocks* threads,
                       std::vector<EventBatch>* pieces, Columns* k, std::string* error);

// Check (after CheckStacks, as CheckEvents for format 1): the chunk's base
// seq is not before prev_seq (the last event's of the chunks before), every
// api is valid (a free never has kApiNoBlockFlag), every stack id known, and
// the sparse alignment and old-address columns have one entry per event that
// takes one.
bool CheckVarintEvents(const fb::Chunk& c, const Columns& k, uint64_t prev_seq, ColumnLayout layout,
                       std::string* error);

}  // namespace heaprec::format::detail

#endif  // HEAPREC_FORMAT_INTERNAL_VARINT_COLUMNS_H_
