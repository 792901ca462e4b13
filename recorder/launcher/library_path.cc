// Where libheaprec.so lives relative to heaprec (library_path.h).
#include "recorder/launcher/library_path.h"

#include <limits.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

namespace heaprec::recorder::launcher {

std::string FindPreloadLibrary() {
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) return "";
  exe[n] = '\0';
  const std::string self = exe;
  const std::string dir = self.substr(0, self.rfind('/'));
  std::vector<std::string> candidates = {
      dir + "/libheaprec.so",                             // bazel-bin/recorder/
      self + ".runfiles/heaprec/recorder/libheaprec.so",  // runfiles tree
      dir + "/../lib/heaprec/libheaprec.so",              // installed prefix
  };
  if (const char* runfiles = getenv("RUNFILES_DIR")) {
    candidates.push_back(std::string(runfiles) + "/heaprec/recorder/libheaprec.so");
  }
  for (const std::string& c : candidates) {
    char real[PATH_MAX];
    if (access(c.c_str(), R_OK) == 0 && realpath(c.c_str(), real) != nullptr) return real;
  }
  return "";
}

}  // namespace heaprec::recorder::launcher
