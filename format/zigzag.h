// Zigzag encoding of signed deltas, so that small negative and positive
// differences both become small unsigned numbers (and compress well).
// Pure functions: thread- and signal-safe, no allocation.
#ifndef HEAPREC_FORMAT_ZIGZAG_H_
#define HEAPREC_FORMAT_ZIGZAG_H_

#include <cstdint>

namespace heaprec::format {

// Encodes the two's-complement difference b - a (mod 2^64).
constexpr uint64_t ZigzagDelta(uint64_t a, uint64_t b) {
  const uint64_t d = b - a;
  return (d << 1) ^ (0 - (d >> 63));
}

// Inverse of ZigzagDelta: returns b given a and the encoding.
constexpr uint64_t ApplyZigzagDelta(uint64_t a, uint64_t z) {
  const uint64_t d = (z >> 1) ^ (0 - (z & 1));
  return a + d;
}

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_ZIGZAG_H_
