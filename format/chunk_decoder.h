// ChunkDecoder: verifies one chunk's FlatBuffer and hands its records to a
// TraceVisitor. Keeps the state that spans chunks (next chunk index, last
// seq, highest stack id, blocks made, whether the end was seen; for format 1
// traces the live addresses, to number blocks) to check that each chunk
// continues the ones before it. Decode runs verify -> load -> check ->
// deliver; the stages of each format version's column layout are in
// format/internal/ (private to this target).
//
// A chunk is checked completely before any of its records are delivered, so
// a damaged chunk delivers nothing. Not thread-safe; allocates (strings of
// the records it delivers); for tools, never the traced process.
#ifndef HEAPREC_FORMAT_CHUNK_DECODER_H_
#define HEAPREC_FORMAT_CHUNK_DECODER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "format/block_numbers.h"
#include "format/decoder_state.h"
#include "format/event_batch.h"
#include "format/format_version.h"
#include "format/leak_scan_columns.h"
#include "format/thread_blocks.h"
#include "format/trace_visitor.h"

namespace heaprec::format {

namespace detail {
struct Columns;  // format/internal/chunk_columns.h
}  // namespace detail

class ChunkDecoder {
 public:
  // Decodes chunks of this format version (1.x: addresses only, blocks are
  // numbered here; 2.x and 3.x: block refs).
  explicit ChunkDecoder(FormatVersion version = {kFormatMajor, kFormatMinor});
  ~ChunkDecoder();
  ChunkDecoder(ChunkDecoder&&);
  ChunkDecoder& operator=(ChunkDecoder&&);

  // Checks and delivers one chunk; data must be 8-byte aligned (as a
  // std::vector's is). On damage returns false, sets *error to what is wrong,
  // and delivers nothing.
  bool Decode(const uint8_t* data, size_t size, TraceVisitor& visitor, std::string* error);

  // Skims one chunk: checks that it is a chunk with the expected index and
  // delivers its process, modules, module unloads, threads, stack nodes,
  // symbols, markers, leak scans and end, but not its events nor its RSS
  // samples, which are not even decoded (the cost of a chunk is its events).
  // The state that events carry (seqs, blocks, sizes) is left as it was:
  // after a skim, only Resume, or more skims, may follow. Format 1: the
  // same as Decode.
  bool Skim(const uint8_t* data, size_t size, TraceVisitor& visitor, std::string* error);

  // Format 2 and 3 decoders: the state after the chunks so far, or false
  // (format 1, or a leak scan continues in the next chunk: no state is
  // taken in the middle of one).
  bool State(DecoderState* state) const;
  // Takes the state a State() call gave after chunk state.next_index - 1
  // of the same trace; this decoder has skimmed the chunks before.
  void Resume(const DecoderState& state);

  bool seen_end() const { return seen_end_; }
  uint32_t chunks() const { return next_index_; }
  uint64_t events() const { return events_; }

 private:
  FormatVersion version_;
  BlockNumbers blocks_;                  // format 1: blocks from addresses
  uint64_t blocks_made_ = 0;             // formats 2, 3: blocks made before the next chunk
  ThreadBlocks thread_blocks_;           // format 3: each thread's recent blocks
  std::vector<uint64_t> size_by_stack_;  // formats 2, 3: the last size per stack id
  // One chunk's columns as numbers, reused from chunk to chunk.
  std::unique_ptr<detail::Columns> columns_;
  // The chunk's events in seq order, as delivered, in pieces
  // (format/internal/chunk_delivery.h).
  std::vector<EventBatch> pieces_;
  uint32_t next_index_ = 0;
  // Events must come after last_seq_: the last event's seq, or just before
  // a later marker's or leak scan's. A chunk's base_seq continues from the
  // last event's (last_event_seq_).
  uint64_t last_seq_ = 0;
  uint64_t last_event_seq_ = 0;
  uint32_t last_stack_id_ = 0;
  uint64_t events_ = 0;
  bool seen_end_ = false;
  OpenLeakScan open_scan_;
  RssSample last_rss_;  // the last RSS sample delivered (3.4)
};

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_CHUNK_DECODER_H_
