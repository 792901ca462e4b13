// The 24-byte file header (see format_version.h).
#include "format/format_version.h"

#include <cstring>

namespace heaprec::format {
namespace {

void PutLe(uint8_t* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

uint64_t GetLe(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

}  // namespace

std::string VersionLine(const std::string& tool) {
  return tool + " " + kToolsVersion + " (trace format " + std::to_string(kFormatMajor) + "." +
         std::to_string(kFormatMinor) + ")";
}

void EncodeHeader(uint8_t out[kHeaderSize]) {
  PutLe(out, kSkippableMagic, 4);
  PutLe(out + 4, kHeaderSize - 8, 4);
  std::memcpy(out + 8, kTraceMagic, sizeof(kTraceMagic));
  PutLe(out + 16, kFormatMajor, 2);
  PutLe(out + 18, kFormatMinor, 2);
  PutLe(out + 20, 0, 4);
}

HeaderCheck CheckHeader(const uint8_t* data, size_t n, FormatVersion* version) {
  uint8_t expected[kHeaderSize];
  EncodeHeader(expected);
  // Magic and frame size (bytes 0..15) must match exactly.
  const size_t fixed = n < 16 ? n : 16;
  if (std::memcmp(data, expected, fixed) != 0) return HeaderCheck::kBadMagic;
  if (n < kHeaderSize) return HeaderCheck::kShort;
  version->major = static_cast<uint16_t>(GetLe(data + 16, 2));
  version->minor = static_cast<uint16_t>(GetLe(data + 18, 2));
  if (version->major > kFormatMajor) return HeaderCheck::kNewerMajor;
  if (version->major == 0) return HeaderCheck::kBadMagic;
  return HeaderCheck::kOk;
}

}  // namespace heaprec::format
