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

uint64_t DeliverVarintEvents(const fb::Chunk& c, const Columns& k, uint64_t made, TraceVisitor& v) {
  const uint64_t unit = TimeUnitNs(c);
  const bool kept = !k.address_delta.empty();
  return DeliverInSeqOrder(
      c, k,
      [&](size_t j, Event* e) {
        const uint32_t i = k.order[j];
        const uint8_t b = c.api()->Get(i);
        e->api = static_cast<Api>(b & kApiMask);
        e->seq = k.seq[i];
        e->time_ns = k.units[i] * unit;
        e->thread = static_cast<uint32_t>(k.thread[i]);
        e->size = k.size[i];
        e->stack = static_cast<uint32_t>(k.stack[i]);
        e->alignment = k.alignment[i];
        const EventKind kind = e->kind();
        e->block = e->old_block = 0;
        const uint64_t released = k.d[i] == 0 ? 0 : made - k.d[i] + 1;
        if (kind == EventKind::kFree) e->block = released;
        if (kind == EventKind::kRealloc) e->old_block = released;
        if (kind != EventKind::kFree && (b & kApiNoBlockFlag) == 0) e->block = ++made;
        if (kept) {
          e->address = k.address[i];
          e->old_address = k.old_address[i];
        } else {
          e->address = kind == EventKind::kFree ? k.passed[i] : 0;
          e->old_address = kind == EventKind::kRealloc ? k.passed[i] : 0;
        }
      },
      v);
}

}  // namespace heaprec::format::detail
