// Formats 2 and 3: seq and block-ref checks, delivery in seq order
// (varint_events.h).
#include "format/internal/varint_events.h"

#include "format/internal/chunk_delivery.h"

namespace heaprec::format::detail {

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
  for (size_t piece = 0; piece < *p; ++piece) {
    EventBatch& o = (*pieces)[piece];
    const uint32_t* order = k->order.data() + piece * kDeliveryPiece;
    for (size_t j = 0; j < o.count(); ++j) {
      const uint32_t i = order[j];
      const uint8_t b = apis[i];
      const Api api = static_cast<Api>(b & kApiMask);
      const EventKind kind = KindOf(api);
      const uint32_t thread = k->thread[i];
      const bool has_ref = kind != EventKind::kAlloc;  // a free or a realloc
      const BlockRefForm form = has_ref ? k->form[i] : BlockRefForm::kAnyThread;
      const uint64_t d = has_ref ? k->d[i] : 0;
      // Entries the ref does not have were never written.
      const uint32_t maker = form == BlockRefForm::kOtherThread ? k->maker[i] : 0;
      const uint64_t passed =
          has_ref && form == BlockRefForm::kAnyThread && d == 0 ? k->passed[i] : 0;
      Resolved r;
      if (!Resolve(i, kind, b, thread, has_ref, form, d, maker, passed, threads, &m, &r, error)) {
        return false;
      }
      o.api[j] = api;
      o.seq[j] = k->seq[i];
      o.time_ns[j] = k->units[i] * unit;
      o.thread[j] = thread;
      o.size[j] = k->size[i];
      o.stack[j] = k->stack[i];
      o.block[j] = r.block;
      o.old_block[j] = r.old_block;
      // Mostly 0: the columns are written only once a value is not.
      o.SetRare(EventBatch::kAlignment, j, HasAlignment(api) ? k->alignment[i] : 0);
      if (kept) {
        o.SetRare(EventBatch::kAddress, j, k->address[i]);
        o.SetRare(EventBatch::kOldAddress, j, kind == EventKind::kRealloc ? k->old_address[i] : 0);
      } else {
        o.SetRare(EventBatch::kAddress, j, kind == EventKind::kFree ? r.passed : 0);
        o.SetRare(EventBatch::kOldAddress, j, kind == EventKind::kRealloc ? r.passed : 0);
      }
    }
    if (weighted) WeighPiece(k->sample_rate, &o);
  }
  *made = m;
  return true;
}

}  // namespace heaprec::format::detail
