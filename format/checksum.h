// ChunkChecksum: the CRC-32 that a trace's chunk prefix carries
// (FORMAT.md, "Chunks"): zlib's crc32() of the chunk's bytes (the ISO-HDLC
// polynomial, reflected, initial and final xor 0xffffffff), computed by
// libdeflate, which folds 16 to 64 bytes a step with carry-less
// multiplication where the CPU has it: 15-22 GB/s against zlib's 3 GB/s on
// the development machine. The values are zlib's (trace_damage_test checks
// chunks against zlib's crc32()).
// Pure function; thread-safe; no allocation.
#ifndef HEAPREC_FORMAT_CHECKSUM_H_
#define HEAPREC_FORMAT_CHECKSUM_H_

#include <libdeflate.h>

#include <cstddef>
#include <cstdint>

namespace heaprec::format {

inline uint32_t ChunkChecksum(const void* data, size_t size) {
  return libdeflate_crc32(0, data, size);
}

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_CHECKSUM_H_
