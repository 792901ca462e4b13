// Memory for zstd's large buffers (the window and match tables of a trace's
// one stream: tens of MiB) from mmap with transparent huge pages asked for.
//
// Why: every 4 KiB page of fresh memory costs a page fault on first touch,
// and a 2^25-byte window at level 7 touches ~14,000 pages. Where faults are
// dear (in the virtual machines docs/BENCHMARKS.md was measured in, 32 MiB
// took ~100 ms to touch page by page and ~10 ms in huge pages) that was most
// of the launcher's 20,000 faults recording alloc_heavy. Where the kernel
// gives no huge pages (transparent_hugepage "never") the memory is the same
// as malloc's, only mapped apart.
//
// AllocateLargeBuffer / FreeLargeBuffer have the form of zstd's
// ZSTD_customMem (ZSTD_createCCtx_advanced, ZSTD_createDCtx_advanced: see
// trace_writer.cc, frame_reader.cc); LargeBufferAllocator puts a std::vector
// there. Blocks of kLargeBufferMin bytes or more are mapped on their own (and
// unmapped when freed), smaller ones come from malloc. Thread-safe (no
// state); blocks have malloc's alignment (16 bytes) or better.
#ifndef HEAPREC_BASE_LARGE_BUFFERS_H_
#define HEAPREC_BASE_LARGE_BUFFERS_H_

#include <cstddef>
#include <cstdint>
#include <new>

namespace heaprec::base {

inline constexpr size_t kLargeBufferMin = size_t{1} << 20;

// A ZSTD_customMem pair (opaque unused).
void* AllocateLargeBuffer(void* opaque, size_t size);
void FreeLargeBuffer(void* opaque, void* address);
// True if address came from AllocateLargeBuffer's own mapping (not malloc).
bool IsMappedLargeBuffer(const void* address);

// The same memory for a std::vector that grows to MiBs and is reused (a
// chunk's pending events, the launcher's drained records).
template <typename T>
struct LargeBufferAllocator {
  using value_type = T;
  LargeBufferAllocator() = default;
  template <typename U>
  LargeBufferAllocator(const LargeBufferAllocator<U>&) {}  // NOLINT: rebinding
  T* allocate(size_t n) {
    void* p = n > SIZE_MAX / sizeof(T) ? nullptr : AllocateLargeBuffer(nullptr, n * sizeof(T));
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) { FreeLargeBuffer(nullptr, p); }
  template <typename U>
  bool operator==(const LargeBufferAllocator<U>&) const {
    return true;
  }
};

}  // namespace heaprec::base

#endif  // HEAPREC_BASE_LARGE_BUFFERS_H_
