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

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "format/event_batch.h"
#include "format/internal/chunk_columns.h"
#include "format/records.h"
#include "format/sampling.h"
#include "format/trace_visitor.h"

namespace heaprec::format::detail {

void DeliverProcess(const fb::Process& p, TraceVisitor& v);
// Modules, module unloads and threads.
void DeliverTables(const fb::Chunk& c, TraceVisitor& v);
void DeliverStacksAndSymbols(const fb::Chunk& c, const Columns& k, TraceVisitor& v);
void DeliverEnd(const fb::End& e, TraceVisitor& v);
Marker ToMarker(const fb::Marker& m);

// Events are written and delivered this many at a time: the columns of a
// piece stay in the cache between the writing and the visitor's reading.
inline constexpr size_t kDeliveryPiece = 2048;

// Delivers the chunk's k.n events, which fill(out, begin, end) writes into
// *out (sized end - begin) for events [begin, end) in seq order (called for
// consecutive ranges), merged with the chunk's markers, leak scans
// (k.leak_scans) and RSS samples (k.rss_samples): each before the event with
// an equal or larger seq; at one seq, samples, then a marker, then a scan.
// Runs of events between two such records go out in OnEvents calls of at
// most kDeliveryPiece events, or, a piece with no such record in it, as
// OnEventBatch(out) (the visitor may take out's columns). Returns the last event's seq (the chunk's
// base seq if there is none).
template <typename Fill>
uint64_t DeliverInSeqOrder(const fb::Chunk& c, const Columns& k, Fill&& fill, EventBatch* out,
                           TraceVisitor& v) {
  const size_t n = k.n;
  const bool weighted = k.sample_rate != 0;
  const size_t n_markers = Len(c.markers());
  size_t next_marker = 0, next_scan = 0, next_rss = 0;
  // The next record that is not an event, in order (false: none left);
  // *seq is its seq.
  auto next_other = [&](uint64_t* seq) {
    const uint64_t m = next_marker < n_markers ? c.markers()->Get(next_marker)->seq() : UINT64_MAX;
    const uint64_t s = next_scan < k.leak_scans.size() ? k.leak_scans[next_scan].seq : UINT64_MAX;
    const uint64_t r = next_rss < k.rss_samples.size() ? k.rss_samples[next_rss].seq : UINT64_MAX;
    *seq = std::min({m, s, r});
    return next_marker < n_markers || next_scan < k.leak_scans.size() ||
           next_rss < k.rss_samples.size();
  };
  auto deliver_other = [&]() {
    const uint64_t m = next_marker < n_markers ? c.markers()->Get(next_marker)->seq() : UINT64_MAX;
    const uint64_t s = next_scan < k.leak_scans.size() ? k.leak_scans[next_scan].seq : UINT64_MAX;
    const uint64_t r = next_rss < k.rss_samples.size() ? k.rss_samples[next_rss].seq : UINT64_MAX;
    if (next_rss < k.rss_samples.size() && r <= m && r <= s) {
      v.OnRssSample(k.rss_samples[next_rss++]);
    } else if (next_marker < n_markers && m <= s) {
      v.OnMarker(ToMarker(*c.markers()->Get(next_marker++)));
    } else {
      v.OnLeakScan(k.leak_scans[next_scan++]);
    }
  };
  uint64_t last = c.base_seq();
  for (size_t begin = 0; begin < n; begin += kDeliveryPiece) {
    const size_t end = std::min(n, begin + kDeliveryPiece);
    const size_t count = end - begin;
    out->Resize(count, weighted);
    fill(out, begin, end);
    if (weighted) {
      for (size_t i = 0; i < count; ++i) {
        const Event e = out->Span().At(i);
        out->weight[i] = e.CountsAsAllocation() ? SampleWeight(e.size, k.sample_rate) : 1.0;
      }
    }
    const EventSpan piece = out->Span();
    last = piece.seq[count - 1];
    uint64_t seq = 0;
    if (!next_other(&seq) || seq > last) {  // no other record in the piece: it goes whole
      v.OnEventBatch(out);
      continue;
    }
    size_t done = 0;
    // Each record before the first event whose seq is at least its own.
    while (next_other(&seq) && seq <= last) {
      size_t stop = done;
      while (piece.seq[stop] < seq) ++stop;
      if (stop > done) v.OnEvents(piece.Sub(done, stop));
      done = stop;
      deliver_other();
    }
    if (done < count) v.OnEvents(piece.Sub(done, count));
  }
  uint64_t seq = 0;
  while (next_other(&seq)) deliver_other();
  return last;
}

}  // namespace heaprec::format::detail

#endif  // HEAPREC_FORMAT_INTERNAL_CHUNK_DELIVERY_H_
