// /proc/PID/status's Rss lines (rss_sampler.h).
#include "recorder/launcher/rss_sampler.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace heaprec::recorder::launcher {
namespace {

// The kB value after "Name:" at the start of a line in text, or false.
bool Field(const char* text, size_t size, const char* name, uint64_t* bytes) {
  const size_t n = std::strlen(name);
  for (size_t i = 0; i + n <= size; ++i) {
    if ((i == 0 || text[i - 1] == '\n') && std::memcmp(text + i, name, n) == 0) {
      size_t j = i + n;
      while (j < size && (text[j] == ' ' || text[j] == '\t')) ++j;
      uint64_t v = 0;
      bool digits = false;
      for (; j < size && text[j] >= '0' && text[j] <= '9'; ++j) {
        v = v * 10 + static_cast<uint64_t>(text[j] - '0');
        digits = true;
      }
      if (!digits) return false;
      *bytes = v * 1024;  // the kernel prints kB (KiB)
      return true;
    }
    // Skip to the next line.
    const void* nl = std::memchr(text + i, '\n', size - i);
    if (nl == nullptr) return false;
    i = static_cast<size_t>(static_cast<const char*>(nl) - text);
  }
  return false;
}

}  // namespace

bool ParseRssStatus(const char* text, size_t size, RssReading* out) {
  RssReading r;
  if (!Field(text, size, "RssAnon:", &r.anon_bytes)) return false;
  Field(text, size, "RssFile:", &r.file_bytes);
  Field(text, size, "RssShmem:", &r.shmem_bytes);
  *out = r;
  return true;
}

RssSampler::RssSampler(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%d/status", static_cast<int>(pid));
  fd_ = open(path, O_RDONLY | O_CLOEXEC);
}

RssSampler::~RssSampler() {
  if (fd_ >= 0) close(fd_);
}

bool RssSampler::Read(RssReading* out) {
  if (fd_ < 0) return false;
  char buf[4096];  // status is about 1.5 KB
  const ssize_t n = pread(fd_, buf, sizeof(buf), 0);
  if (n <= 0) return false;
  return ParseRssStatus(buf, static_cast<size_t>(n), out);
}

}  // namespace heaprec::recorder::launcher
