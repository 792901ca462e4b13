// Delivery of a checked chunk's records, any format version
// (chunk_delivery.h).
#include "format/internal/chunk_delivery.h"

#include <algorithm>
#include <string>

#include "format/sampling.h"

namespace heaprec::format::detail {
namespace {

std::string Str(const flatbuffers::String* s) {
  return s ? std::string(s->data(), s->size()) : std::string();
}

}  // namespace

void DeliverProcess(const fb::Process& p, TraceVisitor& v) {
  ProcessInfo info;
  info.program = Str(p.program());
  if (p.args()) {
    for (const flatbuffers::String* a : *p.args()) info.args.push_back(Str(a));
  }
  info.pid = p.pid();
  info.ppid = p.ppid();
  info.start_realtime_ns = p.start_realtime_ns();
  info.start_monotonic_ns = p.start_monotonic_ns();
  info.clock = Str(p.clock());
  info.page_size = p.page_size();
  info.recorder = Str(p.recorder());
  info.hostname = Str(p.hostname());
  info.parent_trace_seq = p.parent_trace_seq();
  info.parent_trace = Str(p.parent_trace());
  info.sample_rate = p.sample_rate();
  info.from_start = p.from_start();
  v.OnProcess(info);
}

void DeliverTables(const fb::Chunk& c, TraceVisitor& v) {
  if (c.modules()) {
    for (const fb::Module* m : *c.modules()) {
      Module mod;
      mod.id = m->id();
      mod.path = Str(m->path());
      if (m->build_id()) {
        mod.build_id.assign(reinterpret_cast<const char*>(m->build_id()->data()),
                            m->build_id()->size());
      }
      mod.load_address = m->load_address();
      if (m->ranges()) {
        for (const fb::Range* r : *m->ranges()) {
          mod.ranges.push_back({r->start(), r->end(), r->file_offset()});
        }
      }
      mod.seq = m->seq();
      v.OnModule(mod);
    }
  }
  if (c.module_unloads()) {
    for (const fb::ModuleUnload* u : *c.module_unloads()) {
      v.OnModuleUnload({u->id(), u->seq()});
    }
  }
  if (c.threads()) {
    for (const fb::Thread* t : *c.threads()) {
      v.OnThread({t->thread(), t->tid(), Str(t->name()), t->seq()});
    }
  }
}

void DeliverStacksAndSymbols(const fb::Chunk& c, const Columns& k, TraceVisitor& v) {
  for (size_t i = 0; i < k.stack_parent.size(); ++i) {
    v.OnStackNode({c.base_stack_id() + 1 + static_cast<uint32_t>(i),
                   static_cast<uint32_t>(k.stack_parent[i]), k.stack_address[i]});
  }
  if (c.symbols()) {  // before 3.5
    for (const fb::Symbol* s : *c.symbols()) {
      Symbol sym;
      sym.address = s->address();
      sym.module = s->module_id();
      if (s->frames()) {
        for (const fb::Frame* f : *s->frames()) {
          sym.frames.push_back({Str(f->function()), Str(f->file()), f->line(), f->column()});
        }
      }
      v.OnSymbol(sym);
    }
  }
  for (const Symbol& s : k.symbols) v.OnSymbol(s);  // 3.5: LoadSymbols
}

Marker ToMarker(const fb::Marker& m) { return {m.seq(), m.time_ns(), m.thread(), Str(m.label())}; }

void DeliverEnd(const fb::End& e, TraceVisitor& v) {
  EndRecord r;
  r.events = e.events();
  r.allocations = e.allocations();
  r.frees = e.frees();
  r.reallocs = e.reallocs();
  r.bytes_allocated = e.bytes_allocated();
  r.stack_nodes = e.stack_nodes();
  r.chunks = e.chunks();
  r.end_time_ns = e.end_time_ns();
  r.exit_status = e.exit_status();
  r.symbols_complete = e.symbols_complete();
  r.replaced_by_exec = e.replaced_by_exec();
  if (e.counters()) {
    for (const fb::Counter* c : *e.counters()) {
      r.counters.emplace_back(Str(c->name()), c->value());
    }
  }
  v.OnEnd(r);
}

size_t SizePieces(size_t n, bool weights, std::vector<EventBatch>* pieces) {
  const size_t p = (n + kDeliveryPiece - 1) / kDeliveryPiece;
  if (pieces->size() < p) pieces->resize(p);
  for (size_t i = 0; i < p; ++i) {
    (*pieces)[i].Resize(std::min(kDeliveryPiece, n - i * kDeliveryPiece), weights);
  }
  return p;
}

void WeighPiece(uint64_t sample_rate, EventBatch* piece) {
  const EventSpan s = piece->Span();
  for (size_t i = 0; i < s.count; ++i) {
    const Event e = s.At(i);
    piece->weight[i] = e.CountsAsAllocation() ? SampleWeight(e.size, sample_rate) : 1.0;
  }
}

uint64_t DeliverEvents(const fb::Chunk& c, const Columns& k, size_t p,
                       std::vector<EventBatch>* pieces, TraceVisitor& v) {
  const size_t n_markers = Len(c.markers());
  size_t next_marker = 0, next_scan = 0, next_rss = 0;
  // The seq of the next record that is not an event (false: none left).
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
  uint64_t seq = 0;
  for (size_t i = 0; i < p; ++i) {
    EventBatch& piece = (*pieces)[i];
    const size_t count = piece.count();
    last = piece.seq[count - 1];
    if (!next_other(&seq) || seq > last) {  // no other record among its events
      v.OnEventBatch(&piece);
      continue;
    }
    const EventSpan events = piece.Span();
    size_t done = 0;
    // Each record before the first event whose seq is at least its own.
    while (next_other(&seq) && seq <= last) {
      size_t stop = done;
      while (events.seq[stop] < seq) ++stop;
      if (stop > done) v.OnEvents(events.Sub(done, stop));
      done = stop;
      deliver_other();
    }
    if (done < count) v.OnEvents(events.Sub(done, count));
  }
  while (next_other(&seq)) deliver_other();
  return last;
}

}  // namespace heaprec::format::detail
