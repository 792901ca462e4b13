// Format 1: fixed-width columns, address refs and block numbers from
// addresses (fixed_columns.h).
#include "format/internal/fixed_columns.h"

#include "format/address_refs.h"
#include "format/internal/chunk_delivery.h"
#include "format/zigzag.h"

namespace heaprec::format::detail {
namespace {

template <typename T, typename U>
void Copy(const flatbuffers::Vector<T>* v, std::vector<U>* out) {
  out->clear();
  if (v) out->assign(v->begin(), v->end());
}

// Reconstructs event addresses from address_delta, address_delta_base and
// address_ref, event by event. Used twice per chunk: once to check the refs
// (before anything is delivered), once to deliver.
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
  e->thread = k.thread[i];
  e->size = k.size[i];
  e->stack = k.stack[i];
  e->alignment = HasAlignment(e->api) ? c.alignment()->Get((*next_alignment)++) : 0;
  e->old_address =
      HasOldAddress(e->api) && Len(c.old_address()) > 0 ? c.old_address()->Get((*next_old)++) : 0;
}

}  // namespace

bool LoadFixedColumns(const fb::Chunk& c, Columns* k, std::string* error) {
  const size_t n = k->n = Len(c.api());
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

bool CheckFixedSeqs(const fb::Chunk& c, const Columns& k, std::string* error) {
  uint64_t seq = c.base_seq();
  for (size_t i = 0; i < k.n; ++i) {
    const uint64_t next = seq + k.seq_delta[i];
    if (next < seq || k.seq_delta[i] > UINT32_MAX) {
      *error = "sequence numbers overflow";
      return false;
    }
    seq = next;
  }
  return true;
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

size_t FillFixedEvents(const fb::Chunk& c, const Columns& k, BlockNumbers* blocks,
                       std::vector<EventBatch>* pieces) {
  const uint64_t unit = TimeUnitNs(c);
  AddressDecoder addresses(c, k);
  size_t next_alignment = 0, next_old = 0;
  // Seqs and times are deltas from the event before (in seq order).
  Event e;
  e.seq = c.base_seq();
  e.time_ns = c.base_time_ns();
  const size_t p = SizePieces(k.n, k.sample_rate != 0, pieces);
  for (size_t piece = 0; piece < p; ++piece) {
    EventBatch& o = (*pieces)[piece];
    for (size_t j = 0; j < o.count(); ++j) {
      const size_t i = piece * kDeliveryPiece + j;
      DecodeFields(c, k, i, unit, &next_alignment, &next_old, &e);
      addresses.Next(i, &e);  // checked by CheckAddresses
      blocks->Assign(&e);
      o.Set(j, e);
    }
    if (k.sample_rate != 0) WeighPiece(k.sample_rate, &o);
  }
  return p;
}

}  // namespace heaprec::format::detail
