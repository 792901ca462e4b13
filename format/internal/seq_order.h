// Formats 2 and 3: the events' seq order. A writer groups a chunk's event
// columns by thread; readers deliver the events in seq order
// (format/FORMAT.md, "Events"). Format 2 gives every event its seq (a sort
// finds the order); format 3 gives the order as runs of one thread's events
// (seq_run_v) and the seqs as the seqs skipped.
//
// Internal to ChunkDecoder (called at the end of LoadVarintColumns). Not
// thread-safe; allocates (the order, reused from chunk to chunk).
#ifndef HEAPREC_FORMAT_INTERNAL_SEQ_ORDER_H_
#define HEAPREC_FORMAT_INTERNAL_SEQ_ORDER_H_

#include <string>

#include "format/internal/chunk_columns.h"

namespace heaprec::format::detail {

// Format 2: puts the events' column indexes (k->order) in order of k->seq.
// False if a seq repeats.
bool OrderBySeq(Columns* k, std::string* error);

// Format 3: puts k->order in seq order from seq_run_v (runs of a column
// group's events; empty: the columns are in seq order) and gives each event
// its seq (k->seq, which holds the seqs skipped until then). The column
// groups are k->groups. False if the runs do not
// take every group whole or the seqs overflow.
bool OrderByRuns(const fb::Chunk& c, Columns* k, std::string* error);

}  // namespace heaprec::format::detail

#endif  // HEAPREC_FORMAT_INTERNAL_SEQ_ORDER_H_
