// DecoderState's bytes (decoder_state.h).
#include "format/decoder_state.h"

#include "format/zigzag.h"

namespace heaprec::format {

void DecoderState::Encode(StateWriter* w) const {
  w->U(next_index);
  w->U(frame_offset);
  w->U(blocks_made);
  w->U(last_seq);
  w->U(last_event_seq);
  w->U(last_stack_id);
  w->U(events);
  w->U(sample_rate);
  w->U(size_by_stack.size());
  for (uint64_t s : size_by_stack) w->U(s);
  w->U(last_rss.seq);
  w->U(last_rss.time_ns);
  w->U(last_rss.anon_bytes);
  w->U(last_rss.file_bytes);
  w->U(last_rss.shmem_bytes);
  w->U(last_rss.unsplit_bytes);
  w->U(threads.size());
  for (const Thread& t : threads) {
    w->U(t.thread);
    w->U(t.count);
    w->U(t.recent.size());
    uint64_t last = 0;  // as zigzag deltas: a thread's blocks are mostly near each other
    for (uint64_t b : t.recent) {
      w->U(ZigzagDelta(last, b));
      last = b;
    }
  }
}

bool DecoderState::Decode(StateReader* r) {
  next_index = static_cast<uint32_t>(r->U());
  frame_offset = r->U();
  blocks_made = r->U();
  last_seq = r->U();
  last_event_seq = r->U();
  last_stack_id = static_cast<uint32_t>(r->U());
  events = r->U();
  sample_rate = r->U();
  size_by_stack.resize(r->Count());
  for (uint64_t& s : size_by_stack) s = r->U();
  last_rss.seq = r->U();
  last_rss.time_ns = r->U();
  last_rss.anon_bytes = r->U();
  last_rss.file_bytes = r->U();
  last_rss.shmem_bytes = r->U();
  last_rss.unsplit_bytes = r->U();
  threads.resize(r->Count(3));
  for (Thread& t : threads) {
    t.thread = static_cast<uint32_t>(r->U());
    t.count = r->U();
    t.recent.resize(r->Count());
    uint64_t last = 0;
    for (uint64_t& b : t.recent) b = last = ApplyZigzagDelta(last, r->U());
  }
  return r->ok();
}

}  // namespace heaprec::format
