// Formats 2 and 3: seq and block-ref checks, delivery in seq order
// (varint_events.h).
#include "format/internal/varint_events.h"

#include "format/internal/api_traits.h"
#include "format/internal/chunk_delivery.h"

namespace heaprec::format::detail {

bool EventError(size_t i, const char* what, std::string* error) {
  *error = "event " + std::to_string(i) + what;
  return false;
}

bool RefBeyondError(size_t i, uint64_t d, uint64_t made, std::string* error) {
  *error = "event " + std::to_string(i) + " names block ref " + std::to_string(d) + " of only " +
           std::to_string(made) + " made";
  return false;
}

bool CheckVarintSeqs(const Columns& k, uint64_t prev_seq, std::string* error) {
  if (k.n > 0 && k.first_seq <= prev_seq) {  // seqs start at 1
    *error = "events go back in sequence (" + std::to_string(k.first_seq) + " after " +
             std::to_string(prev_seq) + ")";
    return false;
  }
  return true;
}

bool ResolveEvents(const fb::Chunk& c, Columns* k, uint64_t* made, ThreadBlocks* threads,
                   std::vector<EventBatch>* pieces, size_t* p, std::string* error) {
  if (c.base_block() != *made) {
    *error = "blocks do not continue (base " + std::to_string(c.base_block()) + ", expected " +
             std::to_string(*made) + ")";
    return false;
  }
  if (k->direct) {
    if (!k->resolve_error.empty()) {
      *error = k->resolve_error;
      return false;
    }
    *made = k->made_after;
    *p = k->pieces;
    return true;
  }
  const size_t n = k->n;
  const uint64_t unit = TimeUnitNs(c);
  const bool kept = k->kept;
  const bool weighted = k->sample_rate != 0;
  const uint8_t* apis = n == 0 ? nullptr : c.api()->data();
  *p = SizePieces(n, weighted, pieces);
  uint64_t m = *made;
  // k's columns in locals, as the pieces' (EventBatch::Writer): a store
  // through Api would make the compiler load them again per event.
  const uint32_t* const k_thread = k->thread.data();
  const BlockRefForm* const k_form = k->form.data();
  const uint64_t* const k_d = k->d.data();
  const uint32_t* const k_maker = k->maker.data();
  const uint64_t* const k_passed = k->passed.data();
  const uint64_t* const k_seq = k->seq.data();
  const uint64_t* const k_units = k->units.data();
  const uint64_t* const k_size = k->size.data();
  const uint32_t* const k_stack = k->stack.data();
  const uint64_t* const k_alignment = k->alignment.data();
  const uint64_t* const k_address = k->address.data();
  const uint64_t* const k_old_address = k->old_address.data();
  for (size_t piece = 0; piece < *p; ++piece) {
    EventBatch& o = (*pieces)[piece];
    const uint32_t* order = k->order.data() + piece * kDeliveryPiece;
    const size_t count = o.count();
    EventBatch::Writer w(&o);
    for (size_t j = 0; j < count; ++j) {
      const uint32_t i = order[j];
      const uint8_t b = apis[i];
      const Api api = static_cast<Api>(b & kApiMask);
      const uint8_t traits = kApiTraits.of[b];
      const EventKind kind = ApiTraits::Kind(traits);
      const uint32_t thread = k_thread[i];
      const bool has_ref = kind != EventKind::kAlloc;  // a free or a realloc
      const BlockRefForm form = has_ref ? k_form[i] : BlockRefForm::kAnyThread;
      const uint64_t d = has_ref ? k_d[i] : 0;
      // Entries the ref does not have were never written.
      const uint32_t maker = form == BlockRefForm::kOtherThread ? k_maker[i] : 0;
      const uint64_t passed =
          has_ref && form == BlockRefForm::kAnyThread && d == 0 ? k_passed[i] : 0;
      Resolved r;
      if (!Resolve(i, kind, b, thread, has_ref, form, d, maker, passed, threads, &m, &r, error)) {
        return false;
      }
      w.api[j] = api;
      w.seq[j] = k_seq[i];
      w.time_ns[j] = k_units[i] * unit;
      w.thread[j] = thread;
      w.size[j] = k_size[i];
      w.stack[j] = k_stack[i];
      w.block[j] = r.block;
      w.old_block[j] = r.old_block;
      // Mostly 0: the columns are written only once a value is not.
      w.SetRare(EventBatch::kAlignment, j,
                (traits & ApiTraits::kAligned) != 0 ? k_alignment[i] : 0);
      if (kept) {
        w.SetRare(EventBatch::kAddress, j, k_address[i]);
        w.SetRare(EventBatch::kOldAddress, j, kind == EventKind::kRealloc ? k_old_address[i] : 0);
      } else {
        w.SetRare(EventBatch::kAddress, j, kind == EventKind::kFree ? r.passed : 0);
        w.SetRare(EventBatch::kOldAddress, j, kind == EventKind::kRealloc ? r.passed : 0);
      }
    }
    if (weighted) WeighPiece(k->sample_rate, &o);
  }
  *made = m;
  return true;
}

}  // namespace heaprec::format::detail
