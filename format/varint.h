// LEB128 varints: 7 bits per byte, low bits first, high bit set on every byte
// but the last. Format 2 stores its event and stack columns this way: small
// numbers (most deltas) take one byte, which zstd compresses far better than
// the zero-padded bytes of a fixed 64-bit column.
// Header-only; PutVarint allocates (std::vector), WriteVarint writes to a
// buffer the caller sized, ReadVarint and ReadVarintRun read into the
// caller's, ReadVarints allocates its output; none is for the traced process.
#ifndef HEAPREC_FORMAT_VARINT_H_
#define HEAPREC_FORMAT_VARINT_H_

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// Reads the varint at *p (before end) into *v and moves *p past it. False,
// with *p where the bad varint ends, if it is cut short, longer than 10
// bytes or over 64 bits.
inline bool ReadVarint(const uint8_t** p, const uint8_t* end, uint64_t* v) {
  const uint8_t* q = *p;
  if (__builtin_expect(q < end && *q < 0x80, 1)) {  // the common case: one byte
    *v = *q;
    *p = q + 1;
    return true;
  }
  if (end - q >= 3) {  // two or three bytes, unrolled (the first has its high bit set)
    const uint64_t low = (q[0] & 0x7fu) | (static_cast<uint64_t>(q[1] & 0x7fu) << 7);
    if (q[1] < 0x80) {
      *v = low;
      *p = q + 2;
      return true;
    }
    if (q[2] < 0x80) {
      *v = low | (static_cast<uint64_t>(q[2]) << 14);
      *p = q + 3;
      return true;
    }
  }
  uint64_t x = 0;
  for (int shift = 0;; shift += 7) {
    if (q == end || shift > 63) {
      *p = q;
      return false;
    }
    const uint8_t b = *q++;
    if (shift == 63 && b > 1) {
      *p = q;
      return false;
    }
    x |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) break;
  }
  *v = x;
  *p = q;
  return true;
}

#if defined(__SSE2__)
// out[0, 16) = the 16 bytes, each widened to 64 bits.
inline void WidenBytes(__m128i bytes, uint64_t* out) {
  const __m128i zero = _mm_setzero_si128();
  const __m128i words[2] = {_mm_unpacklo_epi8(bytes, zero), _mm_unpackhi_epi8(bytes, zero)};
  for (int w = 0; w < 2; ++w) {
    const __m128i dwords[2] = {_mm_unpacklo_epi16(words[w], zero),
                               _mm_unpackhi_epi16(words[w], zero)};
    for (int d = 0; d < 2; ++d) {
      auto* o = reinterpret_cast<__m128i*>(out + 8 * w + 4 * d);
      _mm_storeu_si128(o, _mm_unpacklo_epi32(dwords[d], zero));
      _mm_storeu_si128(o + 1, _mm_unpackhi_epi32(dwords[d], zero));
    }
  }
}
#endif

// Reads up to count varints from *p (before end) into out[0, count) and
// moves *p past them; returns how many it read (fewer: the bytes ended, or
// the next varint is malformed, and *p is not reliable then). The one-byte
// values before the first longer one among the next 16 bytes are copied at
// once (SSE2, in every x86-64: a movemask finds the longer value, unpacks
// widen the bytes): most values of most columns take one byte.
inline size_t ReadVarintRun(const uint8_t** p, const uint8_t* end, uint64_t* out, size_t count) {
  const uint8_t* q = *p;
  size_t i = 0;
  while (i < count) {
#if defined(__SSE2__)
    if (end - q >= 16) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
      const auto high = static_cast<unsigned>(_mm_movemask_epi8(bytes));
      if (high == 0 && count - i >= 16) {  // 16 one-byte values: bytes to quadwords
        WidenBytes(bytes, out + i);
        q += 16;
        i += 16;
        continue;
      }
      const size_t ones = high == 0 ? 16 : static_cast<size_t>(__builtin_ctz(high));
      const size_t run = ones < count - i ? ones : count - i;
      for (size_t j = 0; j < run; ++j) out[i + j] = q[j];
      q += run;
      i += run;
      if (run < ones || i == count || high == 0) continue;
    }
#endif
    if (!ReadVarint(&q, end, &out[i])) break;  // a longer value, or the last 15 bytes
    ++i;
  }
  *p = q;
  return i;
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
  const uint8_t* p = data;
  return ReadVarintRun(&p, data + size, out->data(), count) == count && p == data + size;
}

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_VARINT_H_
