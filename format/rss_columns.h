// The RSS samples of a chunk (3.4; format/FORMAT.md, "RSS samples"): one
// definition of their encoding, used by the writer (ChunkBuilder) and the
// reader (ChunkDecoder): one varint column per field, deltas from the
// previous sample of the chunk (seq and time never go back; the sizes are
// zigzag), times in microseconds and sizes in KiB.
//
// Not thread-safe; allocates; for tools and the launcher, never the traced
// process.
#ifndef HEAPREC_FORMAT_RSS_COLUMNS_H_
#define HEAPREC_FORMAT_RSS_COLUMNS_H_

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <string>
#include <vector>

#include "format/records.h"
#include "format/trace_generated.h"

namespace heaprec::format {

// Serializes samples (seq and time non-decreasing; ChunkBuilder checks) into b.
flatbuffers::Offset<fb::RssSamples> EncodeRssSamples(flatbuffers::FlatBufferBuilder& b,
                                                     const std::vector<RssSample>& samples);

// The samples at f into *out. False, with *error saying what is wrong, if a
// column does not hold exactly count varints or a seq or time goes back.
bool DecodeRssSamples(const fb::RssSamples& f, std::vector<RssSample>* out, std::string* error);

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_RSS_COLUMNS_H_
