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

// Delivers the chunk's n events, which next(j, &e) fills for j = 0..n-1 in
// seq order, merged with the chunk's markers, leak scans (k.leak_scans) and
// RSS samples (k.rss_samples): each before the event with an equal or larger
// seq; at one seq, samples, then a marker, then a scan. e is one Event throughout: it keeps what
// the previous call left in it, and starts with the chunk's base seq and time. Returns the last
// event's seq (the base seq if there is none).
template <typename NextEvent>
uint64_t DeliverInSeqOrder(const fb::Chunk& c, const Columns& k, NextEvent&& next,
                           TraceVisitor& v) {
  const size_t n_markers = Len(c.markers());
  size_t next_marker = 0, next_scan = 0, next_rss = 0;
  // Everything up to seq (all of it for UINT64_MAX), samples first, markers next.
  auto deliver_up_to = [&](uint64_t seq) {
    for (;;) {
      const bool marker = next_marker < n_markers;
      const bool scan = next_scan < k.leak_scans.size();
      const bool rss = next_rss < k.rss_samples.size();
      const uint64_t m = marker ? c.markers()->Get(next_marker)->seq() : UINT64_MAX;
      const uint64_t s = scan ? k.leak_scans[next_scan].seq : UINT64_MAX;
      const uint64_t r = rss ? k.rss_samples[next_rss].seq : UINT64_MAX;
      if (rss && r <= seq && r <= m && r <= s) {
        v.OnRssSample(k.rss_samples[next_rss++]);
      } else if (marker && m <= seq && m <= s) {
        v.OnMarker(ToMarker(*c.markers()->Get(next_marker++)));
      } else if (scan && s <= seq) {
        v.OnLeakScan(k.leak_scans[next_scan++]);
      } else {
        return;
      }
    }
  };
  Event e;
  e.seq = c.base_seq();
  e.time_ns = c.base_time_ns();
  for (size_t j = 0; j < k.n; ++j) {
    next(j, &e);
    e.weight =
        k.sample_rate != 0 && e.CountsAsAllocation() ? SampleWeight(e.size, k.sample_rate) : 1.0;
    deliver_up_to(e.seq);
    v.OnEvent(e);
  }
  deliver_up_to(UINT64_MAX);
  return e.seq;
}

}  // namespace heaprec::format::detail

#endif  // HEAPREC_FORMAT_INTERNAL_CHUNK_DELIVERY_H_
