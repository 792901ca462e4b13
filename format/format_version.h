// The trace format's identity: file magic and version numbers; and the
// tools' own version.
//
// A trace starts with a 24-byte header that is itself a zstd skippable frame,
// so a whole trace is a valid zstd stream (format/FORMAT.md, "File layout"):
//   u32 le  0x184D2A5E      zstd skippable-frame magic
//   u32 le  16              skippable-frame payload size
//   8 bytes "HEAPREC\0"
//   u16 le  major version   readers refuse a newer major
//   u16 le  minor version   fields were only added; readers accept any minor
//   u32 le  flags           0; reserved
#ifndef HEAPREC_FORMAT_FORMAT_VERSION_H_
#define HEAPREC_FORMAT_FORMAT_VERSION_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace heaprec::format {

// 1.1: time_unit_ns; 1.2: address_delta_base. 2.0: one zstd stream of
// length-prefixed chunks; frees name blocks, addresses optional; 2.1:
// End.symbols_complete. 3.0: a free may name a block by the thread that made
// it (Chunk.ref_form, ref_thread_v). 3.1: leak scans (Chunk.leak_scans).
// 3.2: Process.parent_trace, End.replaced_by_exec. 3.3: Process.sample_rate,
// Process.from_start. 3.4: RSS samples (Chunk.rss_samples). 3.5: symbols as
// columns (Chunk.symbol_columns). 4.0: threads per column group, seq skips and
// time changes only where they occur, no stack entry for a free unless one has
// a stack (Chunk.group_v, seq_skip_v, time_change_v, free_stack_v).
inline constexpr uint16_t kFormatMajor = 4;
inline constexpr uint16_t kFormatMinor = 0;

// The tools' release (heaprec, heapreplay, and the recorder named in every
// trace), stated once, here beside the trace format it writes and reads.
inline constexpr char kToolsVersion[] = "0.1";

// What `tool --version` prints: "heapreplay 0.1 (trace format 3.1)".
std::string VersionLine(const std::string& tool);

inline constexpr size_t kHeaderSize = 24;
inline constexpr uint32_t kSkippableMagic = 0x184D2A5E;
inline constexpr uint32_t kSkippableMagicMask = 0xFFFFFFF0;  // any 0x184D2A5?
inline constexpr uint32_t kZstdMagic = 0xFD2FB528;
inline constexpr char kTraceMagic[8] = {'H', 'E', 'A', 'P', 'R', 'E', 'C', '\0'};

// The largest decompressed chunk a reader accepts; TraceWriter stays far
// below it. Bounds the reader's memory on damaged or hostile input.
inline constexpr size_t kMaxChunkBytes = size_t{64} << 20;

// Format 2: each chunk in the decompressed stream is preceded by this many
// bytes: u32 le chunk size, u32 le CRC-32 (zlib's) of the chunk bytes.
inline constexpr size_t kChunkPrefixSize = 8;

struct FormatVersion {
  uint16_t major = 0;
  uint16_t minor = 0;
};

// Writes the 24-byte header for this build's version into out.
void EncodeHeader(uint8_t out[kHeaderSize]);

enum class HeaderCheck {
  kOk,
  kShort,       // fewer than kHeaderSize bytes, all matching a header so far
  kBadMagic,    // not a heaprec trace
  kNewerMajor,  // a heaprec trace this build cannot read
};

// Checks the first n bytes of a file (n may be less than kHeaderSize) and
// reports the version found when the magic matched.
HeaderCheck CheckHeader(const uint8_t* data, size_t n, FormatVersion* version);

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_FORMAT_VERSION_H_
