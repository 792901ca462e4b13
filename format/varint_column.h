// A FlatBuffers byte vector read as a column of LEB128 varints (varint.h):
// the one way every varint column of a chunk is read (the event and stack
// columns, leak scans, RSS samples, symbols).
//
// Allocates (out); for tools and the launcher, never the traced process.
#ifndef HEAPREC_FORMAT_VARINT_COLUMN_H_
#define HEAPREC_FORMAT_VARINT_COLUMN_H_

#include <flatbuffers/flatbuffers.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace heaprec::format {

// Decodes the column at v (absent: empty) into *out: exactly count values,
// or any number when count is SIZE_MAX. False if the bytes do not hold them
// (ReadVarints).
bool ReadVarintColumn(const flatbuffers::Vector<uint8_t>* v, size_t count,
                      std::vector<uint64_t>* out);

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_VARINT_COLUMN_H_
