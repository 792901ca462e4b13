// ChunkDecoder: verifies one chunk's FlatBuffer and hands its records to a
// TraceVisitor. Keeps the state that spans chunks (next chunk index, last
// seq, highest stack id, blocks made, whether the end was seen; for format 1
// traces the live addresses, to number blocks) to check that each chunk
// continues the ones before it.
//
// A chunk is checked completely before any of its records are delivered, so
// a damaged chunk delivers nothing. Not thread-safe; allocates (strings of
// the records it delivers); for tools, never the traced process.
#ifndef HEAPREC_FORMAT_CHUNK_DECODER_H_
#define HEAPREC_FORMAT_CHUNK_DECODER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "format/block_numbers.h"
#include "format/block_ref.h"
#include "format/format_version.h"
#include "format/thread_blocks.h"
#include "format/trace_visitor.h"

namespace heaprec::format {

namespace detail {
// The event and stack columns of one chunk as plain numbers, however the
// chunk stores them (format 1: fixed-width vectors; format 2: varints).
// Deltas stay deltas, except sizes (absolute) and stack nodes (parent ids
// and absolute addresses). Reused from chunk to chunk.
struct Columns {
  size_t n = 0;  // events
  std::vector<uint64_t> seq_delta, time_delta, thread, address_delta, size, stack, block_ref;
  std::vector<uint64_t> ref_thread;  // format 3: per ref of form 2
  std::vector<uint64_t> seq_run;     // format 3: (group, count) pairs
  std::vector<uint64_t> stack_parent, stack_address;
  // Format 2, per event in column order, resolved: absolute seq, time units,
  // block ref d (format 3: k or i for refs of form 1 or 2, made d by
  // CheckBlocks), the address passed for d = 0, alignment, old address,
  // address (if kept); ref form and maker (form 2); and the events' indexes
  // in seq order.
  std::vector<uint64_t> seq, units, d, passed, alignment, old_address, address;
  std::vector<BlockRefForm> form;
  std::vector<uint32_t> maker;
  std::vector<uint32_t> order;
  std::vector<uint32_t> merge_buffer;  // scratch for sorting order
};
}  // namespace detail

class ChunkDecoder {
 public:
  // Decodes chunks of this format version (1.x: addresses only, blocks are
  // numbered here; 2.x: block refs).
  explicit ChunkDecoder(FormatVersion version = {kFormatMajor, kFormatMinor}) : version_(version) {}

  // Checks and delivers one chunk; data must be 8-byte aligned (as a
  // std::vector's is). On damage returns false, sets *error to what is wrong,
  // and delivers nothing.
  bool Decode(const uint8_t* data, size_t size, TraceVisitor& visitor, std::string* error);

  bool seen_end() const { return seen_end_; }
  uint32_t chunks() const { return next_index_; }
  uint64_t events() const { return events_; }

 private:
  FormatVersion version_;
  BlockNumbers blocks_;                  // format 1: blocks from addresses
  uint64_t blocks_made_ = 0;             // format 2: blocks made before the next chunk
  ThreadBlocks thread_blocks_;           // format 3: each thread's recent blocks
  std::vector<uint64_t> size_by_stack_;  // format 2: the last size per stack id
  detail::Columns columns_;
  uint32_t next_index_ = 0;
  uint64_t last_seq_ = 0;
  uint32_t last_stack_id_ = 0;
  uint64_t events_ = 0;
  bool seen_end_ = false;
};

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_CHUNK_DECODER_H_
