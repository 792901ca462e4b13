// Follow patterns (follow.h).
#include "recorder/preload/follow.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <cstring>

namespace heaprec::recorder::preload {
namespace {

const char* BaseName(const char* path) {
  const char* slash = strrchr(path, '/');
  return slash != nullptr ? slash + 1 : path;
}

}  // namespace

bool AnyPatternMatches(const char* patterns, const char* const* names, size_t n) {
  if (patterns == nullptr) return false;
  char pattern[256];
  for (const char* p = patterns; *p != '\0';) {
    const char* comma = strchr(p, ',');
    const size_t len = comma != nullptr ? static_cast<size_t>(comma - p) : strlen(p);
    if (len > 0 && len < sizeof(pattern)) {
      memcpy(pattern, p, len);
      pattern[len] = '\0';
      for (size_t i = 0; i < n; ++i) {
        if (names[i] != nullptr && names[i][0] != '\0' && fnmatch(pattern, names[i], 0) == 0) {
          return true;
        }
      }
    }
    p += len;
    if (*p == ',') ++p;
  }
  return false;
}

bool ProgramFollowed(const char* only, const char* skip, const char* const* names, size_t n) {
  if (only != nullptr && only[0] != '\0' && !AnyPatternMatches(only, names, n)) return false;
  return !AnyPatternMatches(skip, names, n);
}

bool ThisProgramFollowed(const char* only, const char* skip) {
  if ((only == nullptr || only[0] == '\0') && (skip == nullptr || skip[0] == '\0')) return true;
  const char* names[3] = {};
  const auto* execfn = reinterpret_cast<const char*>(getauxval(AT_EXECFN));
  if (execfn != nullptr) names[0] = BaseName(execfn);
  char exe[4096];
  const ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  exe[len > 0 ? len : 0] = '\0';
  names[1] = BaseName(exe);
  char argv0[4096];
  ssize_t got = 0;
  const int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    got = read(fd, argv0, sizeof(argv0) - 1);
    close(fd);
  }
  argv0[got > 0 ? got : 0] = '\0';  // argv[0] ends at its own NUL
  names[2] = BaseName(argv0);
  return ProgramFollowed(only, skip, names, 3);
}

}  // namespace heaprec::recorder::preload
