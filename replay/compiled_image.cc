// The compiled trace's memory-file image (compiled_image.h).
#include "replay/compiled_image.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace heaprec::replay {

namespace {

constexpr char kMagic[8] = {'H', 'R', 'O', 'P', 'S', '\0', '\0', '1'};
constexpr uint32_t kVersion = 2;  // 2: main_thread

uint64_t Align64(uint64_t n) { return (n + 63) & ~uint64_t{63}; }

bool WriteAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool WriteAt(int fd, uint64_t offset, const void* data, size_t size) {
  return lseek(fd, static_cast<off_t>(offset), SEEK_SET) >= 0 && WriteAll(fd, data, size);
}

}  // namespace

int WriteImage(const CompiledTrace& trace, std::string* error) {
  const int fd = memfd_create("heapreplay-ops", 0);
  if (fd < 0) {
    *error = std::string("memfd_create: ") + std::strerror(errno);
    return -1;
  }
  const auto threads = static_cast<uint32_t>(trace.ops.size());
  ImageHeader h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kVersion;
  h.threads = threads;
  h.main_thread = trace.main_thread;
  h.stats = trace.stats;
  std::vector<ThreadEntry> entries(threads);
  uint64_t at = Align64(sizeof h + threads * sizeof(ThreadEntry));
  for (uint32_t t = 0; t < threads; ++t) {
    ThreadEntry& e = entries[t];
    e.ops_offset = at;
    e.ops_count = trace.ops[t].size();
    at = Align64(at + e.ops_count * sizeof(Op));
    e.waits_offset = at;
    e.waits_count = trace.waits[t].size();
    at = Align64(at + e.waits_count * sizeof(Wait));
  }
  bool ok = ftruncate(fd, static_cast<off_t>(at)) == 0 && WriteAt(fd, 0, &h, sizeof h) &&
            WriteAll(fd, entries.data(), entries.size() * sizeof(ThreadEntry));
  for (uint32_t t = 0; ok && t < threads; ++t) {
    ok =
        WriteAt(fd, entries[t].ops_offset, trace.ops[t].data(), trace.ops[t].size() * sizeof(Op)) &&
        WriteAt(fd, entries[t].waits_offset, trace.waits[t].data(),
                trace.waits[t].size() * sizeof(Wait));
  }
  if (!ok) {
    *error = std::string("writing the compiled trace: ") + std::strerror(errno);
    close(fd);
    return -1;
  }
  return fd;
}

Image::~Image() {
  if (base_ != nullptr) munmap(const_cast<void*>(base_), size_);
}

bool Image::Map(int fd, std::string* error) {
  struct stat st;
  if (fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) < sizeof(ImageHeader)) {
    *error = "compiled trace image: missing or too short";
    return false;
  }
  size_ = static_cast<size_t>(st.st_size);
  void* p = mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    *error = std::string("compiled trace image: mmap: ") + std::strerror(errno);
    return false;
  }
  base_ = p;
  const ImageHeader* h = header();
  if (std::memcmp(h->magic, kMagic, sizeof kMagic) != 0 || h->version != kVersion ||
      sizeof *h + uint64_t{h->threads} * sizeof(ThreadEntry) > size_ ||
      (h->main_thread != kNoMainThread && h->main_thread >= h->threads)) {
    *error = "compiled trace image: bad header";
    return false;
  }
  for (uint32_t t = 0; t < h->threads; ++t) {
    const ThreadEntry& e = entry(t);
    if (e.ops_offset > size_ || e.ops_count > (size_ - e.ops_offset) / sizeof(Op) ||
        e.waits_offset > size_ || e.waits_count > (size_ - e.waits_offset) / sizeof(Wait)) {
      *error = "compiled trace image: thread table out of bounds";
      return false;
    }
  }
  return true;
}

uint64_t Image::Prefault() const {
  uint64_t sum = 0;
  const auto* bytes = static_cast<const volatile char*>(base_);
  for (size_t i = 0; i < size_; i += 4096) sum += static_cast<uint8_t>(bytes[i]);
  return sum;
}

}  // namespace heaprec::replay
