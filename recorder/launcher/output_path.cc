// Trace file names (output_path.h).
#include "recorder/launcher/output_path.h"

namespace heaprec::recorder::launcher {

std::string ExpandPattern(const std::string& pattern, int pid, const std::string& program) {
  const std::string p = pattern.empty() ? "heaprec.%n.%p.zst" : pattern;
  std::string out;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '%' && i + 1 < p.size()) {
      const char c = p[i + 1];
      if (c == 'p') {
        out += std::to_string(pid);
        ++i;
        continue;
      }
      if (c == 'n') {
        out += program;
        ++i;
        continue;
      }
      if (c == '%') {
        out += '%';
        ++i;
        continue;
      }
    }
    out += p[i];
  }
  return out;
}

std::string Alternative(const std::string& path, int n) {
  if (n == 0) return path;
  const std::string ext = ".zst";
  if (path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0) {
    return path.substr(0, path.size() - ext.size()) + "." + std::to_string(n) + ext;
  }
  return path + "." + std::to_string(n);
}

}  // namespace heaprec::recorder::launcher
