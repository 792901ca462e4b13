// File-descriptor and memory implementations of ByteSink and ByteSource.
#include "format/byte_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace heaprec::format {

std::unique_ptr<FdSink> FdSink::Create(const std::string& path, std::string* error) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = path + ": cannot create: " + std::strerror(errno);
    return nullptr;
  }
  return std::make_unique<FdSink>(fd);
}

FdSink::~FdSink() { Close(); }

bool FdSink::Write(const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = write(fd_, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      error_ = std::string("write failed: ") + std::strerror(errno);
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool FdSink::Close() {
  if (fd_ < 0) return true;
  const int rc = close(fd_);
  fd_ = -1;
  if (rc != 0 && error_.empty()) {
    error_ = std::string("close failed: ") + std::strerror(errno);
  }
  return rc == 0;
}

std::unique_ptr<FdSource> FdSource::Open(const std::string& path, std::string* error) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = std::strerror(errno);
    return nullptr;
  }
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    *error = "is a directory";
    return nullptr;
  }
  return std::make_unique<FdSource>(fd);
}

FdSource::~FdSource() {
  if (fd_ >= 0) close(fd_);
}

long FdSource::Read(void* data, size_t n) {
  for (;;) {
    const ssize_t r = read(fd_, data, n);
    if (r >= 0) return static_cast<long>(r);
    if (errno == EINTR) continue;
    error_ = std::strerror(errno);
    return -1;
  }
}

bool FdSource::Seek(uint64_t offset) {
  return lseek(fd_, static_cast<off_t>(offset), SEEK_SET) == static_cast<off_t>(offset);
}

bool MemorySource::Seek(uint64_t offset) {
  if (offset > size_) return false;
  pos_ = offset;
  return true;
}

long MemorySource::Read(void* data, size_t n) {
  const size_t left = size_ - pos_;
  if (n > left) n = left;
  if (n > 0) std::memcpy(data, data_ + pos_, n);
  pos_ += n;
  return static_cast<long>(n);
}

}  // namespace heaprec::format
