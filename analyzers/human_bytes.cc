// HumanBytes (human_bytes.h).
#include "analyzers/human_bytes.h"

#include <cinttypes>
#include <cstdio>

namespace heaprec::analyzers {

std::string HumanBytes(uint64_t bytes) {
  char buf[32];
  if (bytes < 1024) {
    std::snprintf(buf, sizeof(buf), "%" PRIu64 " B", bytes);
  } else if (bytes < (uint64_t{1} << 20)) {
    std::snprintf(buf, sizeof(buf), "%.1f KiB", bytes / 1024.0);
  } else if (bytes < (uint64_t{1} << 30)) {
    std::snprintf(buf, sizeof(buf), "%.1f MiB", bytes / 1048576.0);
  } else {
    std::snprintf(buf, sizeof(buf), "%.2f GiB", bytes / 1073741824.0);
  }
  return buf;
}

std::string Hex(uint64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%" PRIx64, value);
  return buf;
}

std::string HexBytes(const std::string& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const unsigned char b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

std::string Commas(uint64_t value) {
  const std::string digits = std::to_string(value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace heaprec::analyzers
