// ProcFiles (proc_files.h).
#include "recorder/launcher/proc_files.h"

#include <sys/stat.h>

#include <fstream>
#include <iterator>

namespace heaprec::recorder::launcher {

std::string ReadProcFile(const std::string& path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

bool SameNamespace(pid_t pid, const char* kind) {
  struct stat ours, theirs;
  const std::string name = std::string("/ns/") + kind;
  return stat(("/proc/self" + name).c_str(), &ours) == 0 &&
         stat(("/proc/" + std::to_string(pid) + name).c_str(), &theirs) == 0 &&
         ours.st_ino == theirs.st_ino && ours.st_dev == theirs.st_dev;
}

}  // namespace heaprec::recorder::launcher
