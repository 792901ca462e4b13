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

bool CheckBlocks(const fb::Chunk& c, Columns* k, uint64_t* made, ThreadBlocks* threads,
                 std::string* error) {
  if (c.base_block() != *made) {
    *error = "blocks do not continue (base " + std::to_string(c.base_block()) + ", expected " +
             std::to_string(*made) + ")";
    return false;
  }
  uint64_t m = *made;
  for (const uint32_t i : k->order) {
    const uint8_t b = c.api()->Get(i);
    const EventKind kind = KindOf(static_cast<Api>(b & kApiMask));
    const auto thread = static_cast<uint32_t>(k->thread[i]);
    if (kind != EventKind::kAlloc && k->form[i] != BlockRefForm::kAnyThread) {
      // k-th most recent of the caller's blocks, or the maker's i-th.
      const uint64_t count = threads->count(thread);
      const uint64_t block =
          k->form[i] == BlockRefForm::kCallerThread
              ? (k->d[i] > count ? 0 : threads->Block(thread, count - k->d[i] + 1))
              : threads->Block(k->maker[i], k->d[i]);
      if (block == 0) {
        *error = "event " + std::to_string(i) + " names a block its thread did not make lately";
        return false;
      }
      k->d[i] = m - block + 1;
    } else if (kind != EventKind::kAlloc && k->d[i] > m) {
      *error = "event " + std::to_string(i) + " names block ref " + std::to_string(k->d[i]) +
               " of only " + std::to_string(m) + " made";
      return false;
    }
    if (kind != EventKind::kFree && (b & kApiNoBlockFlag) == 0) threads->Made(thread, ++m);
  }
  *made = m;
  return true;
}

uint64_t DeliverVarintEvents(const fb::Chunk& c, const Columns& k, uint64_t made, EventBatch* out,
                             TraceVisitor& v) {
  const uint64_t unit = TimeUnitNs(c);
  const bool kept = !k.address.empty();
  const uint8_t* apis = k.n == 0 ? nullptr : c.api()->data();
  return DeliverInSeqOrder(
      c, k,
      [&](EventBatch* o, size_t begin, size_t end) {
        for (size_t j = 0; j < end - begin; ++j) {
          const uint32_t i = k.order[begin + j];
          const uint8_t b = apis[i];
          const Api api = static_cast<Api>(b & kApiMask);
          const EventKind kind = KindOf(api);
          o->api[j] = api;
          o->seq[j] = k.seq[i];
          o->time_ns[j] = k.units[i] * unit;
          o->thread[j] = k.thread[i];
          o->size[j] = k.size[i];
          o->stack[j] = k.stack[i];
          o->alignment[j] = HasAlignment(api) ? k.alignment[i] : 0;
          uint64_t released = 0, passed = 0;
          if (kind != EventKind::kAlloc) {  // a free or a realloc: its ref
            if (k.d[i] != 0) {
              released = made - k.d[i] + 1;
            } else {
              passed = k.passed[i];
            }
          }
          o->block[j] = kind == EventKind::kFree ? released : 0;
          o->old_block[j] = kind == EventKind::kRealloc ? released : 0;
          if (kind != EventKind::kFree && (b & kApiNoBlockFlag) == 0) o->block[j] = ++made;
          if (kept) {
            o->address[j] = k.address[i];
            o->old_address[j] = kind == EventKind::kRealloc ? k.old_address[i] : 0;
          } else {
            o->address[j] = kind == EventKind::kFree ? passed : 0;
            o->old_address[j] = kind == EventKind::kRealloc ? passed : 0;
          }
        }
      },
      out, v);
}

}  // namespace heaprec::format::detail
