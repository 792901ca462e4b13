// Formats 2 and 3: seq and block-ref checks, delivery in seq order
// (varint_events.h).
#include "format/internal/varint_events.h"

#include "format/internal/chunk_delivery.h"

namespace heaprec::format::detail {

bool CheckVarintSeqs(const Columns& k, uint64_t prev_seq, std::string* error) {
  if (k.n > 0 && k.seq[k.order[0]] <= prev_seq) {  // seqs start at 1
    *error = "events go back in sequence (" + std::to_string(k.seq[k.order[0]]) + " after " +
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
  const size_t n = k->n;
  const uint64_t unit = TimeUnitNs(c);
  const bool kept = !k->address.empty();
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
      uint64_t released = 0, passed = 0;
      if (kind != EventKind::kAlloc) {  // a free or a realloc: the block its ref names
        const BlockRefForm form = k->form[i];
        const uint64_t d = k->d[i];
        if (form != BlockRefForm::kAnyThread) {
          // k-th most recent of the caller's blocks, or the maker's i-th.
          const uint64_t count = threads->count(thread);
          released = form == BlockRefForm::kCallerThread
                         ? (d > count ? 0 : threads->Block(thread, count - d + 1))
                         : threads->Block(k->maker[i], d);
          if (released == 0) {
            *error = "event " + std::to_string(i) + " names a block its thread did not make lately";
            return false;
          }
        } else if (d > m) {
          *error = "event " + std::to_string(i) + " names block ref " + std::to_string(d) +
                   " of only " + std::to_string(m) + " made";
          return false;
        } else if (d != 0) {
          released = m - d + 1;
        } else {
          passed = k->passed[i];
        }
      }
      uint64_t block = kind == EventKind::kFree ? released : 0;
      if (kind != EventKind::kFree && (b & kApiNoBlockFlag) == 0) {
        block = ++m;
        threads->Made(thread, m);
      }
      o.api[j] = api;
      o.seq[j] = k->seq[i];
      o.time_ns[j] = k->units[i] * unit;
      o.thread[j] = thread;
      o.size[j] = k->size[i];
      o.stack[j] = k->stack[i];
      o.alignment[j] = HasAlignment(api) ? k->alignment[i] : 0;
      o.block[j] = block;
      o.old_block[j] = kind == EventKind::kRealloc ? released : 0;
      if (kept) {
        o.address[j] = k->address[i];
        o.old_address[j] = kind == EventKind::kRealloc ? k->old_address[i] : 0;
      } else {
        o.address[j] = kind == EventKind::kFree ? passed : 0;
        o.old_address[j] = kind == EventKind::kRealloc ? passed : 0;
      }
    }
    if (weighted) WeighPiece(k->sample_rate, &o);
  }
  *made = m;
  return true;
}

}  // namespace heaprec::format::detail
