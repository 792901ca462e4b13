// ChunkDecoder's checks that every format version shares (format/FORMAT.md,
// "Checks a reader makes on every chunk"): stack nodes continue the stack
// table, every event has a valid api and a known stack, the sparse columns
// hold one entry per event that needs one, markers increase in seq. The
// checks of one layout only are beside its loading (fixed_columns.h,
// varint_events.h).
//
// Internal to ChunkDecoder. Pure functions of their arguments; allocate only
// for the error message.
#ifndef HEAPREC_FORMAT_INTERNAL_CHUNK_CHECKS_H_
#define HEAPREC_FORMAT_INTERNAL_CHUNK_CHECKS_H_

#include <cstdint>
#include <string>

#include "format/internal/chunk_columns.h"
#include "format/leak_scan_columns.h"

namespace heaprec::format::detail {

// last_stack_id: the highest stack id of the chunks before.
bool CheckStacks(const fb::Chunk& c, const Columns& k, uint32_t last_stack_id, std::string* error);
// Format 1 (formats 2 and 3: CheckVarintEvents, varint_columns.h): the
// apis, stack ids and sparse columns. prev_seq: the last seq of the chunks
// before; max_stack: the highest stack id once this chunk's nodes are added.
bool CheckEvents(const fb::Chunk& c, const Columns& k, uint64_t prev_seq, uint32_t max_stack,
                 ColumnLayout layout, std::string* error);
bool CheckMarkers(const fb::Chunk& c, uint64_t prev_seq, std::string* error);
// Decodes the chunk's leak scans into k->leak_scans (format/leak_scan_columns.h)
// and checks their order: seqs increase from above prev_seq, except that the
// parts of one scan share its seq and follow each other (*open: the scan
// whose next part must come next, if any; updated).
bool LoadLeakScans(const fb::Chunk& c, uint64_t prev_seq, OpenLeakScan* open, Columns* k,
                   std::string* error);
// Decodes the chunk's RSS samples (3.4) into k->rss_samples
// (format/rss_columns.h) and checks their order: each after every event of
// the chunks before (seq above prev_event_seq), and no seq or time below the
// previous sample's (*last, the last sample so far; updated).
bool LoadRssSamples(const fb::Chunk& c, uint64_t prev_event_seq, RssSample* last, Columns* k,
                    std::string* error);
// Decodes the chunk's symbol columns (3.5) into k->symbols
// (format/symbol_columns.h).
bool LoadSymbols(const fb::Chunk& c, Columns* k, std::string* error);

}  // namespace heaprec::format::detail

#endif  // HEAPREC_FORMAT_INTERNAL_CHUNK_CHECKS_H_
