// Known allocators and the --allocators list (allocators.h).
#include "replay/allocators.h"

#include <unistd.h>

namespace heaprec::replay {

namespace {

const AllocatorSpec kKnown[] = {
    {"glibc", "", "", ""},
    {"tcmalloc", "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4", "libtcmalloc-minimal4",
     "tc_malloc"},
    {"jemalloc", "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "libjemalloc2", "mallctl"},
    {"mimalloc", "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2", "libmimalloc2.0", "mi_version"},
};

}  // namespace

bool ParseAllocators(const std::string& list, std::vector<AllocatorSpec>* out, std::string* error) {
  out->clear();
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    const std::string item = list.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    bool known = false;
    for (const AllocatorSpec& k : kKnown) {
      if (item == k.name) {
        out->push_back(k);
        known = true;
      }
    }
    if (known) continue;
    if (item.find('/') == std::string::npos) {
      *error = "--allocators: unknown allocator '" + item +
               "' (glibc, tcmalloc, jemalloc, mimalloc, or a path to a .so)";
      return false;
    }
    out->push_back({item.substr(item.rfind('/') + 1), item, "", ""});
  }
  if (out->empty()) {
    *error = "--allocators: no allocator named";
    return false;
  }
  return true;
}

std::string MissingLibrary(const AllocatorSpec& spec) {
  if (spec.library.empty() || access(spec.library.c_str(), R_OK) == 0) return "";
  std::string line = spec.name + ": " + spec.library + " is missing";
  if (!spec.package.empty()) {
    line += " (Debian package " + spec.package + "; tools/setup.sh installs it)";
  }
  return line;
}

}  // namespace heaprec::replay
