// /proc/self/status, clear_refs and getrusage (proc_stats.h).
#include "replay/proc_stats.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

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

CpuUsage ProcessCpuUsage() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return {Ns(u.ru_utime) + Ns(u.ru_stime), static_cast<uint64_t>(u.ru_minflt)};
}

}  // namespace heaprec::replay
