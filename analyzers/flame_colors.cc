// FrameFill (flame_colors.h).
#include "analyzers/flame_colors.h"

#include <cstdint>
#include <cstdio>

namespace heaprec::analyzers {
namespace {

// FNV-1a: stable across runs and platforms, unlike std::hash.
uint32_t NameHash(const std::string& name) {
  uint32_t h = 2166136261u;
  for (const char c : name) {
    h ^= static_cast<uint8_t>(c);
    h *= 16777619u;
  }
  return h;
}

std::string Rgb(int r, int g, int b) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "rgb(%d,%d,%d)", r, g, b);
  return buf;
}

}  // namespace

std::string FrameFill(const PathFrame& frame) {
  const uint32_t h = NameHash(frame.name);
  // Three numbers in [0, 1) from different bits of the hash.
  const double a = (h & 0xff) / 256.0;
  const double b = ((h >> 8) & 0xff) / 256.0;
  const double c = ((h >> 16) & 0xff) / 256.0;
  if (frame.name.starts_with('[')) {
    const int grey = 190 + static_cast<int>(30 * a);
    return Rgb(grey, grey, grey + 5);
  }
  if (frame.inlined) {
    return Rgb(60 + static_cast<int>(60 * a), 170 + static_cast<int>(60 * b),
               170 + static_cast<int>(60 * c));
  }
  return Rgb(205 + static_cast<int>(50 * a), static_cast<int>(230 * b), static_cast<int>(55 * c));
}

}  // namespace heaprec::analyzers
