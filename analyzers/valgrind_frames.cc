// One frame as valgrind writes it (valgrind_frames.h).
#include "analyzers/valgrind_frames.h"

#include <cinttypes>
#include <cstdio>

namespace heaprec::analyzers {

std::string ValgrindFrameText(const Frame& f) {
  char address[32];
  std::snprintf(address, sizeof(address), "0x%" PRIX64 ": ", f.address);
  std::string out = address;
  out += HasFunction(f) ? f.function : "???";
  if (!f.file.empty() && f.line != 0) {
    // Valgrind names the file without its folders.
    const size_t slash = f.file.rfind('/');
    const std::string file = slash == std::string::npos ? f.file : f.file.substr(slash + 1);
    out += " (" + file + ":" + std::to_string(f.line) + ")";
  } else if (!f.module_path.empty() || !f.module.empty()) {
    out += " (in " + (f.module_path.empty() ? f.module : f.module_path) + ")";
  }
  return out;
}

}  // namespace heaprec::analyzers
