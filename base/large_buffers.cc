// LargeBufferMem: a header before each block says how it was obtained.
#include "base/large_buffers.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>

namespace heaprec::base {
namespace {

// Before each block: how many bytes were mapped (0 = from malloc). 64 bytes,
// so that the block keeps a cache line's alignment when mapped.
struct Header {
  size_t mapped;
  size_t magic;
  char pad[48];
};
static_assert(sizeof(Header) == 64);
constexpr size_t kMagic = 0x6c61726765627566;  // "largebuf"
constexpr size_t kHugePage = size_t{2} << 20;

Header* HeaderOf(const void* address) {
  return reinterpret_cast<Header*>(const_cast<char*>(static_cast<const char*>(address)) -
                                   sizeof(Header));
}

}  // namespace

void* AllocateLargeBuffer(void*, size_t size) {
  if (size > SIZE_MAX - sizeof(Header) - kHugePage) return nullptr;
  const size_t total = sizeof(Header) + size;
  if (size >= kLargeBufferMin) {
    const size_t mapped = (total + kHugePage - 1) & ~(kHugePage - 1);
    void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) {
      madvise(p, mapped, MADV_HUGEPAGE);  // a hint: no huge pages is fine
      Header* h = static_cast<Header*>(p);
      h->mapped = mapped;
      h->magic = kMagic;
      return h + 1;
    }
  }
  Header* h = static_cast<Header*>(std::malloc(total));
  if (h == nullptr) return nullptr;
  h->mapped = 0;
  h->magic = kMagic;
  return h + 1;
}

void FreeLargeBuffer(void*, void* address) {
  if (address == nullptr) return;
  Header* h = HeaderOf(address);
  if (h->mapped != 0) {
    munmap(h, h->mapped);
  } else {
    std::free(h);
  }
}

bool IsMappedLargeBuffer(const void* address) {
  return address != nullptr && HeaderOf(address)->mapped != 0;
}

}  // namespace heaprec::base
