// ChunkDecoder: verifies one chunk's FlatBuffer and hands its records to a
// TraceVisitor. Keeps the little state that spans chunks (next chunk index,
// last seq, highest stack id, whether the end was seen) to check that each
// chunk continues the ones before it.
//
// A chunk is checked completely before any of its records are delivered, so
// a damaged chunk delivers nothing. Not thread-safe; allocates (strings of
// the records it delivers); for tools, never the traced process.
#ifndef HEAPREC_FORMAT_CHUNK_DECODER_H_
#define HEAPREC_FORMAT_CHUNK_DECODER_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "format/trace_visitor.h"

namespace heaprec::format {

class ChunkDecoder {
 public:
  // Checks and delivers one chunk; data must be 8-byte aligned (as a
  // std::vector's is). On damage returns false, sets *error to what is wrong,
  // and delivers nothing.
  bool Decode(const uint8_t* data, size_t size, TraceVisitor& visitor, std::string* error);

  bool seen_end() const { return seen_end_; }
  uint32_t chunks() const { return next_index_; }
  uint64_t events() const { return events_; }

 private:
  uint32_t next_index_ = 0;
  uint64_t last_seq_ = 0;
  uint32_t last_stack_id_ = 0;
  uint64_t events_ = 0;
  bool seen_end_ = false;
};

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_CHUNK_DECODER_H_
