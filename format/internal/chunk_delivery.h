// ChunkDecoder's last stage, shared by every format version: hands a checked
// chunk's records to a TraceVisitor in the order format/FORMAT.md gives
// ("Order in which a reader delivers records"): process, modules, module
// unloads, threads, stack nodes, symbols, then events and markers merged by
// seq, then the end.
//
// Internal to ChunkDecoder. Not thread-safe; allocates (the strings and
// vectors of the records it delivers); for tools, never the traced process.
#ifndef HEAPREC_FORMAT_INTERNAL_CHUNK_DELIVERY_H_
#define HEAPREC_FORMAT_INTERNAL_CHUNK_DELIVERY_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "format/event_batch.h"
#include "format/internal/chunk_columns.h"
#include "format/records.h"
#include "format/trace_visitor.h"

namespace heaprec::format::detail {

void DeliverProcess(const fb::Process& p, TraceVisitor& v);
// Modules, module unloads and threads.
void DeliverTables(const fb::Chunk& c, TraceVisitor& v);
void DeliverStacksAndSymbols(const fb::Chunk& c, const Columns& k, TraceVisitor& v);
void DeliverEnd(const fb::End& e, TraceVisitor& v);
Marker ToMarker(const fb::Marker& m);

// A chunk's events are written, in seq order, into pieces of this many
// (EventBatch each): a visitor takes a piece whole or in runs, and what it
// reads was written shortly before.
inline constexpr size_t kDeliveryPiece = 2048;

// Readies (*pieces)[0, p) for n events in seq order, p = ceil(n /
// kDeliveryPiece): each sized kDeliveryPiece (the last: the rest), with a
// weight column if weights; the entries are unwritten. Returns p. Entries
// of *pieces beyond p are kept (their memory is reused later).
size_t SizePieces(size_t n, bool weights, std::vector<EventBatch>* pieces);

// A sampled trace's weights (format/sampling.h) for a piece whose other
// columns are written.
void WeighPiece(uint64_t sample_rate, EventBatch* piece);

// Delivers the chunk's events, held in seq order in (*pieces)[0, p), merged
// with the chunk's markers, leak scans (k.leak_scans) and RSS samples
// (k.rss_samples): each before the event with an equal or larger seq; at
// one seq, samples, then a marker, then a scan. A piece with no such record
// among its events goes whole, by OnEventBatch (the visitor may swap it
// out); the others in runs, by OnEvents. Returns the last event's seq (the
// chunk's base seq if there is none).
uint64_t DeliverEvents(const fb::Chunk& c, const Columns& k, size_t p,
                       std::vector<EventBatch>* pieces, TraceVisitor& v);

}  // namespace heaprec::format::detail

#endif  // HEAPREC_FORMAT_INTERNAL_CHUNK_DELIVERY_H_
