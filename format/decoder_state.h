// DecoderState: what a ChunkDecoder carries from one chunk to the next
// (chunk_decoder.h), taken after a chunk so that a later read can skip the
// chunks before and decode on from there (heapreplay's trace index:
// ReaderOptions::resume, TraceVisitor::OnCheckpoint). Formats 2 and 3 only
// (format 1 numbers its blocks from the live addresses, which are not here).
// Encode / Decode give its bytes in the index (FORMAT.md, "The trace index").
// Plain data; allocates.
#ifndef HEAPREC_FORMAT_DECODER_STATE_H_
#define HEAPREC_FORMAT_DECODER_STATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "format/records.h"
#include "format/state_bytes.h"

namespace heaprec::format {

struct DecoderState {
  uint32_t next_index = 0;  // the next chunk to decode
  // Where chunk next_index's zstd frame starts in the file, if that chunk
  // is the frame's first (a read can start decompressing there:
  // ReaderOptions::jump); else 0.
  uint64_t frame_offset = 0;
  uint64_t blocks_made = 0;
  uint64_t last_seq = 0, last_event_seq = 0;
  uint32_t last_stack_id = 0;
  uint64_t events = 0;
  uint64_t sample_rate = 0;
  std::vector<uint64_t> size_by_stack;
  RssSample last_rss;
  // ThreadBlocks: each thread's block count and its last blocks (oldest
  // first, at most ThreadBlocks::kWindow).
  struct Thread {
    uint32_t thread = 0;
    uint64_t count = 0;
    std::vector<uint64_t> recent;
  };
  std::vector<Thread> threads;

  void Encode(StateWriter* w) const;
  // False for bytes that are not a DecoderState.
  bool Decode(StateReader* r);
};

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_DECODER_STATE_H_
