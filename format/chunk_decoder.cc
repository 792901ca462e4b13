// ChunkDecoder: FlatBuffer verification, consistency checks, delivery.
#include "format/chunk_decoder.h"

#include <flatbuffers/flatbuffers.h>

#include <algorithm>
#include <limits>

#include "format/address_refs.h"
#include "format/trace_generated.h"
#include "format/varint.h"
#include "format/zigzag.h"

namespace heaprec::format {
namespace {

namespace fb = ::heaprec::format::fb;

// Per-chunk table limit for the verifier; TraceWriter flushes well below it.
constexpr flatbuffers::uoffset_t kMaxTables = 4 * 1000 * 1000;

template <typename T>
size_t Len(const flatbuffers::Vector<T>* v) {
  return v ? v->size() : 0;
}

// FlatBuffers' verifier checks each vector's length field but not that 8-byte
// elements are 8-byte aligned; a damaged chunk can misalign them. (Empty
// vectors may be misaligned even in good chunks; they are never read.)
template <typename T>
bool Aligned(const flatbuffers::Vector<T>* v) {
  return v == nullptr || v->size() == 0 || reinterpret_cast<uintptr_t>(v->Data()) % alignof(T) == 0;
}

bool ColumnsAligned(const fb::Chunk& c) {
  if (!Aligned(c.time_delta()) || !Aligned(c.address_delta()) || !Aligned(c.size()) ||
      !Aligned(c.alignment()) || !Aligned(c.old_address()) || !Aligned(c.stack_address()) ||
      !Aligned(c.block_ref()) || !Aligned(c.raw_address())) {
    return false;
  }
  if (c.modules()) {
    for (const fb::Module* m : *c.modules()) {
      if (!Aligned(m->ranges())) return false;
    }
  }
  return true;
}

std::string Str(const flatbuffers::String* s) {
  return s ? std::string(s->data(), s->size()) : std::string();
}

// Formats 2 and 3 keep kApiNoBlockFlag in bit 7 of the api byte.
Api ApiOf(uint8_t b, bool v2) { return static_cast<Api>(v2 ? b & kApiMask : b); }

using detail::Columns;

template <typename T>
void Copy(const flatbuffers::Vector<T>* v, std::vector<uint64_t>* out) {
  out->clear();
  if (v) out->assign(v->begin(), v->end());
}

// Decodes a varint column of exactly count values (any count when count is
// SIZE_MAX).
bool Varints(const flatbuffers::Vector<uint8_t>* v, size_t count, std::vector<uint64_t>* out) {
  const uint8_t* data = v ? v->data() : nullptr;
  const size_t size = Len(v);
  if (count != SIZE_MAX) return ReadVarints(data, size, count, out);
  out->clear();
  size_t values = 0;  // a varint ends at each byte without the high bit
  for (size_t i = 0; i < size; ++i) values += (data[i] & 0x80) == 0;
  return ReadVarints(data, size, values, out);
}

// Puts order (0..n-1) in increasing seqs order. A writer groups a chunk's
// events by thread, each thread's in seq order: the order is a few sorted
// runs, merged pairwise in O(n log runs). Many runs (only a damaged or odd
// trace has them) fall back to sorting.
void SortBySeq(const std::vector<uint64_t>& seqs, std::vector<uint32_t>* order,
               std::vector<uint32_t>* buffer) {
  const auto by_seq = [&seqs](uint32_t a, uint32_t b) { return seqs[a] < seqs[b]; };
  std::vector<size_t> runs = {0};  // run starts, then n
  for (size_t i = 1; i < order->size(); ++i) {
    if (seqs[(*order)[i]] < seqs[(*order)[i - 1]]) runs.push_back(i);
  }
  runs.push_back(order->size());
  if (runs.size() > 65) {
    std::sort(order->begin(), order->end(), by_seq);
    return;
  }
  buffer->resize(order->size());
  while (runs.size() > 2) {
    std::vector<size_t> merged = {0};
    for (size_t r = 0; r + 1 < runs.size(); r += 2) {
      const size_t end = r + 2 < runs.size() ? runs[r + 2] : runs[r + 1];
      std::merge(order->begin() + runs[r], order->begin() + runs[r + 1],
                 order->begin() + runs[r + 1], order->begin() + end, buffer->begin() + runs[r],
                 by_seq);
      merged.push_back(end);
    }
    order->swap(*buffer);
    runs = std::move(merged);
  }
}

// Format 2: the columns are in thread order; resolves each event's seq,
// time, block ref and sparse fields in that order, then sorts the events by
// seq (k->order). Checks the sparse columns' lengths and that no seq repeats.
// Format 3: puts the events' column indexes in seq order from seq_run_v
// (runs of a column group's events) into k->order and gives each event its
// seq from the skips in k->seq_delta.
bool OrderByRuns(const fb::Chunk& c, Columns* k, std::string* error) {
  const size_t n = k->n;
  k->order.resize(n);
  if (Len(c.seq_run_v()) == 0) {
    for (size_t i = 0; i < n; ++i) k->order[i] = static_cast<uint32_t>(i);
  } else {
    // merge_buffer: each group's next event (its start, then a cursor), n,
    // then each group's end.
    std::vector<uint32_t>& next = k->merge_buffer;
    next.clear();
    for (size_t i = 0; i < n; ++i) {
      if (i == 0 || k->thread[i] != k->thread[i - 1]) next.push_back(static_cast<uint32_t>(i));
    }
    const size_t groups = next.size();
    next.push_back(static_cast<uint32_t>(n));
    for (size_t g = 0; g < groups; ++g) next.push_back(next[g + 1]);
    const uint32_t* end = next.data() + groups + 1;
    std::vector<uint64_t>& runs = k->seq_run;
    if (!Varints(c.seq_run_v(), SIZE_MAX, &runs) || runs.size() % 2 != 0) {
      *error = "seq runs do not decode";
      return false;
    }
    size_t j = 0;
    for (size_t r = 0; r < runs.size(); r += 2) {
      const uint64_t group = runs[r], count = runs[r + 1];
      if (group >= groups || count > end[group] - next[group] || count == 0) {
        *error = "seq runs do not match the columns";
        return false;
      }
      for (uint64_t m = 0; m < count; ++m) k->order[j++] = next[group]++;
    }
    if (j != n) {  // then every group was taken whole
      *error = "seq runs do not match the columns";
      return false;
    }
  }
  uint64_t seq = c.base_seq();
  for (size_t j = 0; j < n; ++j) {
    const uint32_t i = k->order[j];
    const uint64_t next_seq = seq + 1 + k->seq_delta[i];
    if (next_seq <= seq) {
      *error = "sequence numbers overflow";
      return false;
    }
    k->seq[i] = seq = next_seq;
  }
  return true;
}

bool Resolve(const fb::Chunk& c, bool runs, Columns* k, std::string* error) {
  const size_t n = k->n;
  const uint64_t unit = c.time_unit_ns() == 0 ? 1 : c.time_unit_ns();
  const bool addresses = !k->address_delta.empty();
  // Sized, not zeroed: the loop writes every entry (a zero-fill per chunk
  // was a tenth of heapreplay's time).
  for (auto* v :
       {&k->seq, &k->units, &k->d, &k->passed, &k->alignment, &k->old_address, &k->address}) {
    v->resize(n);
  }
  k->form.resize(n);
  k->maker.resize(n);
  uint64_t seq = c.base_seq(), units = c.base_time_ns() / unit, d = 0, address = c.base_address();
  uint64_t ref_k = 0, ref_i = 0;  // forms 1 and 2: from 0 where the thread changes
  size_t ref = 0, raw = 0, aligned = 0, old = 0, makers = 0;
  const size_t n_raw = Len(c.raw_address()), n_aligned = Len(c.alignment());
  const size_t n_old = Len(c.old_address());
  const bool forms = Len(c.ref_form()) > 0;  // else all refs have form 0
  for (size_t i = 0; i < n; ++i) {
    const Api api = ApiOf(c.api()->Get(i), true);
    const EventKind kind = KindOf(api);
    if (i == 0 || k->thread[i] != k->thread[i - 1]) ref_k = ref_i = 0;
    if (!runs) k->seq[i] = seq = ApplyZigzagDelta(seq, k->seq_delta[i]);
    k->units[i] = units = ApplyZigzagDelta(units, k->time_delta[i]);
    k->d[i] = k->passed[i] = k->alignment[i] = k->old_address[i] = k->address[i] = 0;
    k->form[i] = BlockRefForm::kAnyThread;
    k->maker[i] = 0;
    if (kind == EventKind::kFree || kind == EventKind::kRealloc) {
      const uint8_t byte = forms ? c.ref_form()->Get(static_cast<flatbuffers::uoffset_t>(ref)) : 0;
      const auto form = static_cast<BlockRefForm>(byte);
      const uint64_t x = k->block_ref[ref++];
      k->form[i] = form;
      if (form == BlockRefForm::kCallerThread) {
        k->d[i] = ref_k = ApplyZigzagDelta(ref_k, x);
        if (ref_k == 0) {
          *error = "event " + std::to_string(i) + " names its thread's 0th block";
          return false;
        }
      } else if (form == BlockRefForm::kOtherThread) {
        k->d[i] = ref_i = ApplyZigzagDelta(ref_i, x);
        const uint64_t maker = makers < k->ref_thread.size()
                                   ? ApplyZigzagDelta(k->thread[i], k->ref_thread[makers])
                                   : 0;
        ++makers;
        if (ref_i == 0 || maker > UINT32_MAX) {
          *error = "event " + std::to_string(i) + " names a block of no thread";
          return false;
        }
        k->maker[i] = static_cast<uint32_t>(maker);
      } else if (form == BlockRefForm::kAnyThread) {
        k->d[i] = d = ApplyZigzagDelta(d, x);
        if (d == 0) {
          if (raw == n_raw) break;  // reported below
          k->passed[i] = c.raw_address()->Get(static_cast<flatbuffers::uoffset_t>(raw++));
        }
      } else {
        *error = "event " + std::to_string(i) + " has block ref form " + std::to_string(byte);
        return false;
      }
    }
    if (HasAlignment(api) && aligned < n_aligned) {
      k->alignment[i] = c.alignment()->Get(static_cast<flatbuffers::uoffset_t>(aligned++));
    }
    if (addresses) {
      k->address[i] = address = ApplyZigzagDelta(address, k->address_delta[i]);
      if (HasOldAddress(api) && old < n_old) {
        k->old_address[i] = c.old_address()->Get(static_cast<flatbuffers::uoffset_t>(old++));
      }
    }
  }
  size_t want_raw = 0;
  for (size_t i = 0; i < n; ++i) {
    const EventKind kind = KindOf(ApiOf(c.api()->Get(i), true));
    want_raw += (kind == EventKind::kFree || kind == EventKind::kRealloc) &&
                k->form[i] == BlockRefForm::kAnyThread && k->d[i] == 0;
  }
  if (raw != n_raw || want_raw != n_raw || makers != k->ref_thread.size()) {
    *error = "sparse columns do not match the events";
    return false;
  }
  if (runs) return OrderByRuns(c, k, error);  // seqs increase by construction
  k->order.resize(n);
  for (size_t i = 0; i < n; ++i) k->order[i] = static_cast<uint32_t>(i);
  const std::vector<uint64_t>& seqs = k->seq;
  SortBySeq(seqs, &k->order, &k->merge_buffer);
  for (size_t j = 1; j < n; ++j) {
    if (seqs[k->order[j]] == seqs[k->order[j - 1]]) {
      *error = "event " + std::to_string(k->order[j]) + " repeats a sequence number";
      return false;
    }
  }
  return true;
}

// last_stack_id: the highest stack id of the chunks before (this chunk's
// base_stack_id is checked against it later; until then it is not trusted).
bool LoadColumns(const fb::Chunk& c, bool v2, bool v3, uint32_t last_stack_id,
                 std::vector<uint64_t>* size_by_stack, Columns* k, std::string* error) {
  const size_t n = Len(c.api());
  k->n = n;
  if (!v2) {
    Copy(c.seq_delta(), &k->seq_delta);
    Copy(c.time_delta(), &k->time_delta);
    Copy(c.thread(), &k->thread);
    Copy(c.address_delta(), &k->address_delta);
    Copy(c.size(), &k->size);
    Copy(c.stack(), &k->stack);
    Copy(c.stack_parent(), &k->stack_parent);
    Copy(c.stack_address(), &k->stack_address);
    if (k->seq_delta.size() != n || k->time_delta.size() != n || k->thread.size() != n ||
        k->address_delta.size() != n || k->size.size() != n || k->stack.size() != n) {
      *error = "event columns have different lengths";
      return false;
    }
    if (k->stack_parent.size() != k->stack_address.size()) {
      *error = "stack columns have different lengths";
      return false;
    }
    return true;
  }
  // Format 2 may leave the address column empty (no addresses kept).
  const size_t addresses = Len(c.address_delta_v()) == 0 ? 0 : n;
  if (!Varints(c.seq_delta_v(), n, &k->seq_delta) ||
      !Varints(c.time_delta_v(), n, &k->time_delta) || !Varints(c.thread_v(), n, &k->thread) ||
      !Varints(c.address_delta_v(), addresses, &k->address_delta) ||
      !Varints(c.size_v(), n, &k->size) || !Varints(c.stack_v(), n, &k->stack)) {
    *error = "event columns have different lengths";
    return false;
  }
  size_t refs = 0;
  for (size_t i = 0; i < n; ++i) {
    const EventKind kind = KindOf(ApiOf(c.api()->Get(i), true));
    refs += kind == EventKind::kFree || kind == EventKind::kRealloc;
  }
  if (!Varints(c.block_ref(), refs, &k->block_ref) ||
      (Len(c.ref_form()) != 0 && Len(c.ref_form()) != refs) ||
      !Varints(c.ref_thread_v(), SIZE_MAX, &k->ref_thread)) {
    *error = "sparse columns do not match the events";
    return false;
  }
  if (!Varints(c.stack_parent_v(), SIZE_MAX, &k->stack_parent) ||
      !Varints(c.stack_address_v(), SIZE_MAX, &k->stack_address) ||
      k->stack_parent.size() != k->stack_address.size()) {
    *error = "stack columns have different lengths";
    return false;
  }
  uint64_t address = 0;
  for (size_t i = 0; i < k->stack_parent.size(); ++i) {
    const uint64_t id = uint64_t{c.base_stack_id()} + 1 + i;
    const uint64_t back = k->stack_parent[i];
    // parent = id - back must be 0 or an earlier node; a bad value shows up
    // as a "later parent" in CheckStacks.
    k->stack_parent[i] = back == 0 || back > id ? id : id - back;
    address = ApplyZigzagDelta(address, k->stack_address[i]);
    k->stack_address[i] = address;
  }
  // Sizes are changes from the previous size of the same stack id. Stack ids
  // are checked later (CheckEvents); ids beyond the known ones are skipped
  // here, so the table never outgrows the stack table.
  const uint64_t max_stack = uint64_t{last_stack_id} + k->stack_parent.size();
  for (size_t i = 0; i < n; ++i) {
    const uint64_t stack = k->stack[i];
    if (stack > max_stack) continue;  // rejected by CheckEvents
    if (stack >= size_by_stack->size()) size_by_stack->resize(stack + 1 + stack / 2, 0);
    uint64_t& last = (*size_by_stack)[stack];
    last = ApplyZigzagDelta(last, k->size[i]);
    k->size[i] = last;
  }
  return Resolve(c, v3, k, error);
}

// Checks the event columns and the sparse columns' lengths.
bool CheckEvents(const fb::Chunk& c, const Columns& k, uint64_t prev_seq, uint32_t max_stack,
                 bool v2, std::string* error) {
  const size_t n = k.n;
  if (n > 0 && c.base_seq() < prev_seq) {
    *error = "events go back in sequence (base " + std::to_string(c.base_seq()) + " < " +
             std::to_string(prev_seq) + ")";
    return false;
  }
  size_t aligned = 0, reallocs = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t b = c.api()->Get(i);
    const Api api = ApiOf(b, v2);
    if (!IsValid(api) || (v2 && (b & kApiNoBlockFlag) != 0 && KindOf(api) == EventKind::kFree)) {
      *error = "event " + std::to_string(i) + " has invalid api " + std::to_string(b);
      return false;
    }
    if (!v2 && k.seq_delta[i] == 0) {
      *error = "event " + std::to_string(i) + " repeats a sequence number";
      return false;
    }
    if (k.stack[i] > max_stack) {
      *error = "event " + std::to_string(i) + " names unknown stack " + std::to_string(k.stack[i]);
      return false;
    }
    aligned += HasAlignment(api);
    reallocs += HasOldAddress(api);
  }
  // Format 2 keeps old addresses only with the addresses.
  const size_t olds = !v2 || !k.address_delta.empty() ? reallocs : 0;
  if (Len(c.alignment()) != aligned || Len(c.old_address()) != olds) {
    *error = "sparse columns do not match the events";
    return false;
  }
  if (v2) {
    // Sorted by Resolve, without repeats; all after the previous chunk's.
    if (n > 0 && k.seq[k.order[0]] <= prev_seq) {  // seqs start at 1
      *error = "events go back in sequence (" + std::to_string(k.seq[k.order[0]]) + " after " +
               std::to_string(prev_seq) + ")";
      return false;
    }
    return true;
  }
  // seq must not wrap around.
  uint64_t seq = c.base_seq();
  for (size_t i = 0; i < n; ++i) {
    const uint64_t next = seq + k.seq_delta[i];
    if (next < seq || k.seq_delta[i] > UINT32_MAX) {
      *error = "sequence numbers overflow";
      return false;
    }
    seq = next;
  }
  return true;
}

// Format 2: block refs name blocks already made; returns the blocks made
// after the chunk in *made. Format 3: refs of forms 1 and 2 become d here,
// in seq order, from each thread's recent blocks (kept in *threads).
bool CheckBlocks(const fb::Chunk& c, Columns& k, uint64_t* made, ThreadBlocks* threads,
                 std::string* error) {
  if (c.base_block() != *made) {
    *error = "blocks do not continue (base " + std::to_string(c.base_block()) + ", expected " +
             std::to_string(*made) + ")";
    return false;
  }
  uint64_t m = *made;
  for (const uint32_t i : k.order) {
    const uint8_t b = c.api()->Get(i);
    const EventKind kind = KindOf(ApiOf(b, true));
    const auto thread = static_cast<uint32_t>(k.thread[i]);
    if (kind != EventKind::kAlloc && k.form[i] != BlockRefForm::kAnyThread) {
      // k-th most recent of the caller's blocks, or the maker's i-th.
      const uint64_t count = threads->count(thread);
      const uint64_t block = k.form[i] == BlockRefForm::kCallerThread
                                 ? (k.d[i] > count ? 0 : threads->Block(thread, count - k.d[i] + 1))
                                 : threads->Block(k.maker[i], k.d[i]);
      if (block == 0) {
        *error = "event " + std::to_string(i) + " names a block its thread did not make lately";
        return false;
      }
      k.d[i] = m - block + 1;
    } else if (kind != EventKind::kAlloc && k.d[i] > m) {
      *error = "event " + std::to_string(i) + " names block ref " + std::to_string(k.d[i]) +
               " of only " + std::to_string(m) + " made";
      return false;
    }
    if (kind != EventKind::kFree && (b & kApiNoBlockFlag) == 0) threads->Made(thread, ++m);
  }
  *made = m;
  return true;
}

bool CheckStacks(const fb::Chunk& c, const Columns& k, uint32_t last_stack_id, std::string* error) {
  const size_t n = k.stack_parent.size();
  if (n > 0 && c.base_stack_id() != last_stack_id) {
    *error = "stack ids do not continue (base " + std::to_string(c.base_stack_id()) +
             ", expected " + std::to_string(last_stack_id) + ")";
    return false;
  }
  if (n > std::numeric_limits<uint32_t>::max() - uint64_t{last_stack_id}) {
    *error = "too many stack ids";
    return false;
  }
  for (size_t i = 0; i < n; ++i) {
    const uint32_t id = last_stack_id + 1 + static_cast<uint32_t>(i);
    if (k.stack_parent[i] >= id) {
      *error = "stack node " + std::to_string(id) + " has a later parent";
      return false;
    }
  }
  return true;
}

bool CheckMarkers(const fb::Chunk& c, uint64_t prev_seq, std::string* error) {
  if (!c.markers()) return true;
  uint64_t last = prev_seq;
  for (const fb::Marker* m : *c.markers()) {
    if (m->seq() <= last) {
      *error = "marker out of order (seq " + std::to_string(m->seq()) + ")";
      return false;
    }
    last = m->seq();
  }
  return true;
}

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
  if (!c.symbols()) return;
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

Marker ToMarker(const fb::Marker& m) { return {m.seq(), m.time_ns(), m.thread(), Str(m.label())}; }

// Format 1: reconstructs event addresses from address_delta,
// address_delta_base and address_ref, event by event. Used twice per chunk:
// once to check the refs (before anything is delivered), once to deliver.
class AddressDecoder {
 public:
  AddressDecoder(const fb::Chunk& c, const Columns& k)
      : c_(c),
        k_(k),
        by_kind_(c.address_delta_base() == 1),
        previous_(c.base_address()),
        kind_address_{previous_, previous_, previous_, previous_} {}

  // Fills e->address for event i (e's api, size and old_address set). False
  // if the event's ref names nothing.
  bool Next(size_t i, Event* e) {
    const uint64_t delta = k_.address_delta[i];
    const uint32_t ref = c_.address_ref() && c_.address_ref()->size() > 0
                             ? c_.address_ref()->Get(static_cast<flatbuffers::uoffset_t>(i))
                             : 0;
    if (ref != 0) {
      const EventKind kind = e->kind();
      const bool ok = kind == EventKind::kFree    ? refs_.Allocated(ref, &e->address)
                      : kind == EventKind::kAlloc ? refs_.Freed(ref, &e->address)
                                                  : false;
      if (!ok) return false;
    } else if (by_kind_) {
      uint64_t& base = kind_address_[static_cast<uint8_t>(e->kind()) & 3];
      base = ApplyZigzagDelta(base, delta);
      e->address = base;
    } else {
      previous_ = ApplyZigzagDelta(previous_, delta);
      e->address = previous_;
    }
    if (by_kind_) refs_.NoteEvent(*e);
    return true;
  }

 private:
  const fb::Chunk& c_;
  const Columns& k_;
  bool by_kind_;
  uint64_t previous_;
  uint64_t kind_address_[4];
  AddressRefs refs_;
};

// Fills event i's fields other than addresses and blocks; the sparse indexes
// advance.
void DecodeFields(const fb::Chunk& c, const Columns& k, size_t i, uint64_t unit,
                  size_t* next_alignment, size_t* next_old, Event* e) {
  e->api = static_cast<Api>(c.api()->Get(i) & kApiMask);  // format 1 apis are < 128
  e->seq += k.seq_delta[i];
  e->time_ns += ApplyZigzagDelta(0, k.time_delta[i]) * unit;
  e->thread = static_cast<uint32_t>(k.thread[i]);
  e->size = k.size[i];
  e->stack = static_cast<uint32_t>(k.stack[i]);
  e->alignment = HasAlignment(e->api) ? c.alignment()->Get((*next_alignment)++) : 0;
  e->old_address =
      HasOldAddress(e->api) && Len(c.old_address()) > 0 ? c.old_address()->Get((*next_old)++) : 0;
}

bool CheckAddresses(const fb::Chunk& c, const Columns& k, std::string* error) {
  if (Len(c.address_ref()) != 0 && Len(c.address_ref()) != k.n) {
    *error = "address_ref column has the wrong length";
    return false;
  }
  AddressDecoder addresses(c, k);
  size_t next_alignment = 0, next_old = 0;
  Event e;
  for (size_t i = 0; i < k.n; ++i) {
    DecodeFields(c, k, i, 1, &next_alignment, &next_old, &e);
    if (!addresses.Next(i, &e)) {
      *error = "event " + std::to_string(i) + " refers to an address that is not there";
      return false;
    }
  }
  return true;
}

// Events merged with markers by seq; returns the last event's seq. Format 2
// puts the events in seq order and numbers blocks from made (the blocks made
// before the chunk); format 1 numbers them from the addresses, with blocks.
uint64_t DeliverEvents(const fb::Chunk& c, const Columns& k, bool v2, uint64_t made,
                       BlockNumbers* blocks, TraceVisitor& v) {
  const size_t n_markers = Len(c.markers());
  size_t next_marker = 0, next_alignment = 0, next_old = 0;
  Event e;
  e.seq = c.base_seq();
  e.time_ns = c.base_time_ns();
  const uint64_t unit = c.time_unit_ns() == 0 ? 1 : c.time_unit_ns();
  AddressDecoder addresses(c, k);
  const bool kept = !k.address_delta.empty();
  for (size_t j = 0; j < k.n; ++j) {
    if (v2) {
      const uint32_t i = k.order[j];
      const uint8_t b = c.api()->Get(i);
      e.api = static_cast<Api>(b & kApiMask);
      e.seq = k.seq[i];
      e.time_ns = k.units[i] * unit;
      e.thread = static_cast<uint32_t>(k.thread[i]);
      e.size = k.size[i];
      e.stack = static_cast<uint32_t>(k.stack[i]);
      e.alignment = k.alignment[i];
      const EventKind kind = e.kind();
      e.block = e.old_block = 0;
      const uint64_t released = k.d[i] == 0 ? 0 : made - k.d[i] + 1;
      if (kind == EventKind::kFree) e.block = released;
      if (kind == EventKind::kRealloc) e.old_block = released;
      if (kind != EventKind::kFree && (b & kApiNoBlockFlag) == 0) e.block = ++made;
      if (kept) {
        e.address = k.address[i];
        e.old_address = k.old_address[i];
      } else {
        e.address = kind == EventKind::kFree ? k.passed[i] : 0;
        e.old_address = kind == EventKind::kRealloc ? k.passed[i] : 0;
      }
    } else {
      DecodeFields(c, k, j, unit, &next_alignment, &next_old, &e);
      addresses.Next(j, &e);  // checked by CheckAddresses
      blocks->Assign(&e);
    }
    while (next_marker < n_markers && c.markers()->Get(next_marker)->seq() <= e.seq) {
      v.OnMarker(ToMarker(*c.markers()->Get(next_marker++)));
    }
    v.OnEvent(e);
  }
  while (next_marker < n_markers) {
    v.OnMarker(ToMarker(*c.markers()->Get(next_marker++)));
  }
  return e.seq;
}

EndRecord ToEnd(const fb::End& e) {
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
  if (e.counters()) {
    for (const fb::Counter* c : *e.counters()) {
      r.counters.emplace_back(Str(c->name()), c->value());
    }
  }
  return r;
}

}  // namespace

bool ChunkDecoder::Decode(const uint8_t* data, size_t size, TraceVisitor& visitor,
                          std::string* error) {
  if (seen_end_) {
    *error = "data after the end chunk";
    return false;
  }
  if (reinterpret_cast<uintptr_t>(data) % 8 != 0) {
    *error = "chunk buffer is not 8-byte aligned";  // a caller's mistake
    return false;
  }
  flatbuffers::Verifier verifier(data, size, /*max_depth=*/16, kMaxTables);
  if (!fb::VerifyChunkBuffer(verifier)) {
    *error = "chunk fails FlatBuffers verification";
    return false;
  }
  const fb::Chunk& c = *fb::GetChunk(data);
  if (!ColumnsAligned(c)) {
    *error = "misaligned column";
    return false;
  }
  if (c.index() != next_index_) {
    *error =
        "chunk index " + std::to_string(c.index()) + ", expected " + std::to_string(next_index_);
    return false;
  }
  const bool v2 = version_.major >= 2;
  Columns& k = columns_;
  const bool v3 = version_.major >= 3;
  if (!LoadColumns(c, v2, v3, last_stack_id_, &size_by_stack_, &k, error)) return false;
  if (!CheckStacks(c, k, last_stack_id_, error)) return false;
  const uint32_t max_stack = last_stack_id_ + static_cast<uint32_t>(k.stack_parent.size());
  if (!CheckEvents(c, k, last_seq_, max_stack, v2, error)) return false;
  if (!CheckMarkers(c, last_seq_, error)) return false;
  uint64_t made_after = blocks_made_;
  if (v2 ? !CheckBlocks(c, k, &made_after, &thread_blocks_, error) : !CheckAddresses(c, k, error)) {
    return false;
  }

  if (c.process()) DeliverProcess(*c.process(), visitor);
  DeliverTables(c, visitor);
  DeliverStacksAndSymbols(c, k, visitor);
  const size_t n = k.n;
  if (n > 0 || Len(c.markers()) > 0) {
    const uint64_t last = DeliverEvents(c, k, v2, blocks_made_, &blocks_, visitor);
    if (n > 0) last_seq_ = last;
    if (Len(c.markers()) > 0 && c.markers()->Get(Len(c.markers()) - 1)->seq() > last_seq_) {
      // Later events must come after the last marker.
      last_seq_ = c.markers()->Get(Len(c.markers()) - 1)->seq() - 1;
    }
  }
  events_ += n;
  blocks_made_ = made_after;
  last_stack_id_ = max_stack;
  ++next_index_;
  if (c.end()) {
    seen_end_ = true;
    visitor.OnEnd(ToEnd(*c.end()));
  }
  return true;
}

}  // namespace heaprec::format
