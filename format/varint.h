// LEB128 varints: 7 bits per byte, low bits first, high bit set on every byte
// but the last. Format 2 stores its event and stack columns this way: small
// numbers (most deltas) take one byte, which zstd compresses far better than
// the zero-padded bytes of a fixed 64-bit column.
// Header-only; PutVarint allocates (std::vector), WriteVarint writes to a
// buffer the caller sized, ReadVarints allocates its output; none is for the
// traced process.
#ifndef HEAPREC_FORMAT_VARINT_H_
#define HEAPREC_FORMAT_VARINT_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace heaprec::format {

inline __attribute__((always_inline)) void PutVarint(std::vector<uint8_t>* out, uint64_t v) {
  if (v < 0x80) {  // the common case: one byte
    out->push_back(static_cast<uint8_t>(v));
    return;
  }
  // Byte by byte: a range insert goes through memmove, slower for 2-3 bytes.
  while (v >= 0x80) {
    out->push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<uint8_t>(v));
}

// Writes v at out (room for 10 bytes) and returns the end of what it wrote.
inline __attribute__((always_inline)) uint8_t* WriteVarint(uint8_t* out, uint64_t v) {
  while (v >= 0x80) {
    *out++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *out++ = static_cast<uint8_t>(v);
  return out;
}

// Decodes exactly count varints from data[0, size) into *out (replacing its
// contents). False if the bytes do not hold exactly count well-formed varints
// (cut short, longer than 10 bytes, over 64 bits, or bytes left over).
inline bool ReadVarints(const uint8_t* data, size_t size, size_t count,
                        std::vector<uint64_t>* out) {
  if (count > size) {  // every varint takes at least one byte
    out->clear();
    return false;
  }
  out->resize(count);  // every entry is written below (no clear: no zero-fill)
  uint64_t* o = out->data();
  size_t i = 0;
  for (size_t k = 0; k < count; ++k) {
    if (i < size && data[i] < 0x80) {  // the common case: one byte
      o[k] = data[i++];
      continue;
    }
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      if (i == size || shift > 63) return false;
      const uint8_t b = data[i++];
      if (shift == 63 && b > 1) return false;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) break;
    }
    o[k] = v;
  }
  return i == size;
}

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_VARINT_H_
