// /proc/self/status, clear_refs and getrusage (proc_stats.h).
#include "replay/proc_stats.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace heaprec::replay {

namespace {

// The value of a "Name:   1234 kB" line of /proc/self/status, in bytes.
uint64_t StatusKb(const char* name) {
  char buf[8192];
  const int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  const size_t len = std::strlen(name);
  for (const char* line = buf; line != nullptr && *line != '\0';) {
    if (std::strncmp(line, name, len) == 0 && line[len] == ':') {
      return std::strtoull(line + len + 1, nullptr, 10) * 1024;
    }
    line = std::strchr(line, '\n');
    if (line != nullptr) ++line;
  }
  return 0;
}

uint64_t Ns(const timeval& t) {
  return static_cast<uint64_t>(t.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(t.tv_usec) * 1000;
}

}  // namespace

bool ResetPeakRss() {
  const int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = write(fd, "5", 1) == 1;
  close(fd);
  return ok;
}

uint64_t RssBytes() { return StatusKb("VmRSS"); }

uint64_t StatmRssBytes() {
  char buf[256];
  const int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  char* end = nullptr;
  std::strtoull(buf, &end, 10);  // size
  return std::strtoull(end, nullptr, 10) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}
uint64_t PeakRssBytes() { return StatusKb("VmHWM"); }

uint64_t AnonRssBytes() { return StatusKb("RssAnon"); }

uint64_t FileRssBytes(const char* path) {
  const int fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const size_t path_len = std::strlen(path);
  char buf[16384];
  size_t have = 0;
  bool in_file = false;  // the current mapping is of path
  uint64_t rss = 0, anonymous = 0;
  for (;;) {
    const ssize_t n = read(fd, buf + have, sizeof buf - 1 - have);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    have += static_cast<size_t>(n);
    buf[have] = '\0';
    char* line = buf;
    for (char* nl; (nl = std::strchr(line, '\n')) != nullptr; line = nl + 1) {
      *nl = '\0';
      // A mapping's header starts with its hex range ("7f12-7f34 r-xp ...");
      // its fields are "Name:  value kB".
      const char* colon = std::strchr(line, ':');
      const char* space = std::strchr(line, ' ');
      if (colon == nullptr || (space != nullptr && space < colon)) {
        const size_t len = std::strlen(line);
        in_file = len >= path_len + 1 && std::strcmp(line + len - path_len, path) == 0 &&
                  line[len - path_len - 1] == ' ';
      } else if (in_file && std::strncmp(line, "Rss:", 4) == 0) {
        rss += std::strtoull(line + 4, nullptr, 10) * 1024;
      } else if (in_file && std::strncmp(line, "Anonymous:", 10) == 0) {
        anonymous += std::strtoull(line + 10, nullptr, 10) * 1024;
      }
    }
    have = static_cast<size_t>(buf + have - line);
    std::memmove(buf, line, have);
    if (have == sizeof buf - 1) have = 0;  // a line longer than the buffer: not one we read
  }
  close(fd);
  return rss > anonymous ? rss - anonymous : 0;
}

CpuUsage ProcessCpuUsage() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return {Ns(u.ru_utime) + Ns(u.ru_stime), static_cast<uint64_t>(u.ru_minflt)};
}

}  // namespace heaprec::replay
