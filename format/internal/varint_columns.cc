// Formats 2 and 3: varint columns decoded and resolved (varint_columns.h).
#include "format/internal/varint_columns.h"

#include "format/internal/seq_order.h"
#include "format/varint.h"
#include "format/zigzag.h"

namespace heaprec::format::detail {
namespace {

// A chunk's block refs in column order, resolved one at a time
// (format/FORMAT.md, "Blocks"): the previous value of each form, and the
// cursors of the columns that only some refs have.
class RefReader {
 public:
  enum Result { kResolved, kBad, kNoRawAddress };

  explicit RefReader(const fb::Chunk& c)
      : c_(c), n_raw_(Len(c.raw_address())), forms_(Len(c.ref_form()) > 0) {}

  // kCallerThread and kOtherThread values chain within one thread's events.
  void NewThread() { prev_k_ = prev_i_ = 0; }

  // Event i, a free or a realloc: sets k->form[i], k->d[i] (d, or k or i
  // for the thread forms), k->maker[i] (kOtherThread) and k->passed[i] (d
  // = 0). kNoRawAddress: raw_address has no entry left for it.
  Result Next(size_t i, Columns* k, std::string* error) {
    const uint8_t byte = forms_ ? c_.ref_form()->Get(static_cast<flatbuffers::uoffset_t>(ref_)) : 0;
    const auto form = static_cast<BlockRefForm>(byte);
    const uint64_t x = k->block_ref[ref_++];
    k->form[i] = form;
    switch (form) {
      case BlockRefForm::kCallerThread:
        k->d[i] = prev_k_ = ApplyZigzagDelta(prev_k_, x);
        if (prev_k_ != 0) return kResolved;
        *error = "event " + std::to_string(i) + " names its thread's 0th block";
        return kBad;
      case BlockRefForm::kOtherThread: {
        k->d[i] = prev_i_ = ApplyZigzagDelta(prev_i_, x);
        const uint64_t maker = makers_ < k->ref_thread.size()
                                   ? ApplyZigzagDelta(k->thread[i], k->ref_thread[makers_])
                                   : 0;
        ++makers_;
        if (prev_i_ == 0 || maker > UINT32_MAX) {
          *error = "event " + std::to_string(i) + " names a block of no thread";
          return kBad;
        }
        k->maker[i] = static_cast<uint32_t>(maker);
        return kResolved;
      }
      case BlockRefForm::kAnyThread:
        k->d[i] = prev_d_ = ApplyZigzagDelta(prev_d_, x);
        if (prev_d_ != 0) return kResolved;
        if (raw_ == n_raw_) return kNoRawAddress;
        k->passed[i] = c_.raw_address()->Get(static_cast<flatbuffers::uoffset_t>(raw_++));
        return kResolved;
    }
    *error = "event " + std::to_string(i) + " has block ref form " + std::to_string(byte);
    return kBad;
  }

  size_t raw() const { return raw_; }
  size_t makers() const { return makers_; }

 private:
  const fb::Chunk& c_;
  const size_t n_raw_;
  const bool forms_;  // else all refs have form kAnyThread
  uint64_t prev_d_ = 0, prev_k_ = 0, prev_i_ = 0;
  size_t ref_ = 0, raw_ = 0, makers_ = 0;
};

// Resolves each event's seq (format 2), time, block ref and sparse fields in
// column order, checks the sparse columns' lengths, then puts the events in
// seq order (k->order).
bool Resolve(const fb::Chunk& c, ColumnLayout layout, Columns* k, std::string* error) {
  const size_t n = k->n;
  const bool runs = layout == ColumnLayout::kVarintRuns;
  const uint64_t unit = TimeUnitNs(c);
  const bool addresses = !k->address_delta.empty();
  // Sized, not zeroed: the loop writes every entry (a zero-fill per chunk
  // was a tenth of heapreplay's time).
  for (auto* v :
       {&k->seq, &k->units, &k->d, &k->passed, &k->alignment, &k->old_address, &k->address}) {
    v->resize(n);
  }
  k->form.resize(n);
  k->maker.resize(n);
  uint64_t seq = c.base_seq(), units = c.base_time_ns() / unit, address = c.base_address();
  RefReader refs(c);
  size_t aligned = 0, old = 0;
  const size_t n_aligned = Len(c.alignment()), n_old = Len(c.old_address());
  for (size_t i = 0; i < n; ++i) {
    const Api api = ApiOf(c.api()->Get(i), layout);
    const EventKind kind = KindOf(api);
    if (i == 0 || k->thread[i] != k->thread[i - 1]) refs.NewThread();
    if (!runs) k->seq[i] = seq = ApplyZigzagDelta(seq, k->seq_delta[i]);
    k->units[i] = units = ApplyZigzagDelta(units, k->time_delta[i]);
    k->d[i] = k->passed[i] = k->alignment[i] = k->old_address[i] = k->address[i] = 0;
    k->form[i] = BlockRefForm::kAnyThread;
    k->maker[i] = 0;
    if (kind == EventKind::kFree || kind == EventKind::kRealloc) {
      const RefReader::Result r = refs.Next(i, k, error);
      if (r == RefReader::kBad) return false;
      if (r == RefReader::kNoRawAddress) break;  // reported below
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
    const EventKind kind = KindOf(ApiOf(c.api()->Get(i), layout));
    want_raw += (kind == EventKind::kFree || kind == EventKind::kRealloc) &&
                k->form[i] == BlockRefForm::kAnyThread && k->d[i] == 0;
  }
  const size_t n_raw = Len(c.raw_address());
  if (refs.raw() != n_raw || want_raw != n_raw || refs.makers() != k->ref_thread.size()) {
    *error = "sparse columns do not match the events";
    return false;
  }
  return runs ? OrderByRuns(c, k, error)  // seqs increase by construction
              : OrderBySeq(k, error);
}

// Stack nodes: parent ids from id - parent, addresses from zigzag deltas.
void ResolveStackNodes(const fb::Chunk& c, Columns* k) {
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
}

// Sizes are changes from the previous size of the same stack id. Stack ids
// are checked later (CheckEvents); ids beyond the known ones are skipped
// here, so the table never outgrows the stack table.
void ResolveSizes(uint32_t last_stack_id, std::vector<uint64_t>* size_by_stack, Columns* k) {
  const uint64_t max_stack = uint64_t{last_stack_id} + k->stack_parent.size();
  for (size_t i = 0; i < k->n; ++i) {
    const uint64_t stack = k->stack[i];
    if (stack > max_stack) continue;  // rejected by CheckEvents
    if (stack >= size_by_stack->size()) size_by_stack->resize(stack + 1 + stack / 2, 0);
    uint64_t& last = (*size_by_stack)[stack];
    last = ApplyZigzagDelta(last, k->size[i]);
    k->size[i] = last;
  }
}

}  // namespace

bool ReadVarintColumn(const flatbuffers::Vector<uint8_t>* v, size_t count,
                      std::vector<uint64_t>* out) {
  const uint8_t* data = v ? v->data() : nullptr;
  const size_t size = Len(v);
  if (count != SIZE_MAX) return ReadVarints(data, size, count, out);
  out->clear();
  size_t values = 0;  // a varint ends at each byte without the high bit
  for (size_t i = 0; i < size; ++i) values += (data[i] & 0x80) == 0;
  return ReadVarints(data, size, values, out);
}

bool LoadVarintColumns(const fb::Chunk& c, ColumnLayout layout, uint32_t last_stack_id,
                       std::vector<uint64_t>* size_by_stack, Columns* k, std::string* error) {
  const size_t n = k->n = Len(c.api());
  // The address column may be empty (no addresses kept).
  const size_t addresses = Len(c.address_delta_v()) == 0 ? 0 : n;
  if (!ReadVarintColumn(c.seq_delta_v(), n, &k->seq_delta) ||
      !ReadVarintColumn(c.time_delta_v(), n, &k->time_delta) ||
      !ReadVarintColumn(c.thread_v(), n, &k->thread) ||
      !ReadVarintColumn(c.address_delta_v(), addresses, &k->address_delta) ||
      !ReadVarintColumn(c.size_v(), n, &k->size) || !ReadVarintColumn(c.stack_v(), n, &k->stack)) {
    *error = "event columns have different lengths";
    return false;
  }
  size_t refs = 0;
  for (size_t i = 0; i < n; ++i) {
    const EventKind kind = KindOf(ApiOf(c.api()->Get(i), layout));
    refs += kind == EventKind::kFree || kind == EventKind::kRealloc;
  }
  if (!ReadVarintColumn(c.block_ref(), refs, &k->block_ref) ||
      (Len(c.ref_form()) != 0 && Len(c.ref_form()) != refs) ||
      !ReadVarintColumn(c.ref_thread_v(), SIZE_MAX, &k->ref_thread)) {
    *error = "sparse columns do not match the events";
    return false;
  }
  if (!ReadVarintColumn(c.stack_parent_v(), SIZE_MAX, &k->stack_parent) ||
      !ReadVarintColumn(c.stack_address_v(), SIZE_MAX, &k->stack_address) ||
      k->stack_parent.size() != k->stack_address.size()) {
    *error = "stack columns have different lengths";
    return false;
  }
  ResolveStackNodes(c, k);
  ResolveSizes(last_stack_id, size_by_stack, k);
  return Resolve(c, layout, k, error);
}

}  // namespace heaprec::format::detail
