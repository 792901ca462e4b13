// A byte vector as a varint column (varint_column.h).
#include "format/varint_column.h"

#include "format/varint.h"

namespace heaprec::format {

bool ReadVarintColumn(const flatbuffers::Vector<uint8_t>* v, size_t count,
                      std::vector<uint64_t>* out) {
  const uint8_t* data = v ? v->data() : nullptr;
  const size_t size = v ? v->size() : 0;
  if (count != SIZE_MAX) return ReadVarints(data, size, count, out);
  out->clear();
  size_t values = 0;  // a varint ends at each byte without the high bit
  for (size_t i = 0; i < size; ++i) values += (data[i] & 0x80) == 0;
  return ReadVarints(data, size, values, out);
}

}  // namespace heaprec::format
