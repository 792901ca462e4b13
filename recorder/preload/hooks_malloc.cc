// The C allocation functions, exported to take the place of the libc ones:
// each forwards to the real allocator and records the call (recorder.h).
// Allocations record after the real call returns; free takes its seq before
// the real free; realloc takes one before (the old block may be released
// inside) and, if the block moved, one after for the new block, so the trace
// shows "old freed" then "new allocated" with nothing misordered between.
#include <errno.h>

#include <cstdint>
#include <cstring>

#include "format/api.h"
#include "recorder/preload/real_allocator.h"
#include "recorder/preload/recorder.h"

#define HEAPREC_EXPORT extern "C" __attribute__((visibility("default")))

using heaprec::format::Api;
namespace pre = heaprec::recorder::preload;

namespace {

void* Bootstrap(size_t size, size_t alignment) {
  pre::CountBootstrap();
  return pre::BootstrapAlloc(size, alignment);
}

template <typename Call>
void* Alloc(Api api, size_t size, size_t extra, Call call) {
  pre::ThreadState& ts = pre::Tls();
  if (!pre::Enter(ts)) return call();
  void* p = call();
  const int saved = errno;
  pre::RecordAlloc(ts, api, p, size, extra, HEAPREC_HOOK_FRAME());
  errno = saved;
  pre::Leave(ts);
  return p;
}

void Free(Api api, void* p, size_t size, size_t alignment) {
  if (p == nullptr || pre::IsBootstrap(p)) return;
  const pre::RealAllocator* real = pre::Real();
  if (real == nullptr) return;  // cannot happen: p came from a resolved allocator
  pre::ThreadState& ts = pre::Tls();
  if (!pre::Enter(ts)) return real->free(p);
  const int saved = errno;
  pre::RecordFree(ts, api, p, size, alignment, HEAPREC_HOOK_FRAME());
  errno = saved;
  real->free(p);
  pre::Leave(ts);
}

void* ReallocFromBootstrap(void* old, size_t size) {
  const pre::RealAllocator* real = pre::Real();
  void* p = real != nullptr ? real->malloc(size) : Bootstrap(size, 16);
  if (p != nullptr) {
    const size_t n = pre::BootstrapSize(old);
    memcpy(p, old, n < size ? n : size);
  }
  return p;
}

// realloc and reallocarray: size is the new size in bytes (0 on overflow).
template <typename Call>
void* Realloc(Api api, void* old, size_t size, Call call) {
  // realloc(NULL, n) only allocates: its seq comes after, as for malloc.
  if (old == nullptr) return Alloc(api, size, 0, call);
  pre::ThreadState& ts = pre::Tls();
  if (!pre::Enter(ts)) return call();
  const uint64_t before = pre::TakeSeq();
  void* p = call();
  const int saved = errno;
  const uint32_t stack = pre::CaptureStack(HEAPREC_HOOK_FRAME());
  const auto o = reinterpret_cast<uint64_t>(old);
  const auto n = reinterpret_cast<uint64_t>(p);
  if (p == nullptr || p == old) {
    // One event: failed, freed by size 0, or resized in place.
    pre::WriteEvent(ts, before, api, n, p == nullptr && size == 0 ? 0 : size, o, stack);
  } else {
    // Moved: the old block was released inside the call, the new one is live
    // from now on.
    pre::WriteEvent(ts, before, api, 0, 0, o, stack);
    pre::WriteEvent(ts, pre::TakeSeq(), api, n, size, 0, stack);
  }
  errno = saved;
  pre::Leave(ts);
  return p;
}

}  // namespace

HEAPREC_EXPORT void* malloc(size_t size) {
  const pre::RealAllocator* real = pre::Real();
  if (real == nullptr) return Bootstrap(size, 16);
  return Alloc(Api::kMalloc, size, 0, [&] { return real->malloc(size); });
}

HEAPREC_EXPORT void free(void* p) { Free(Api::kFree, p, 0, 0); }

HEAPREC_EXPORT void* calloc(size_t n, size_t size) {
  const pre::RealAllocator* real = pre::Real();
  size_t bytes;
  if (__builtin_mul_overflow(n, size, &bytes)) bytes = SIZE_MAX;
  if (real == nullptr) return Bootstrap(bytes, 16);  // the static arena is zeroed
  return Alloc(Api::kCalloc, bytes, 0, [&] { return real->calloc(n, size); });
}

HEAPREC_EXPORT void* realloc(void* old, size_t size) {
  if (old != nullptr && pre::IsBootstrap(old)) return ReallocFromBootstrap(old, size);
  const pre::RealAllocator* real = pre::Real();
  if (real == nullptr) return Bootstrap(size, 16);
  return Realloc(Api::kRealloc, old, size, [&] { return real->realloc(old, size); });
}

HEAPREC_EXPORT void* reallocarray(void* old, size_t n, size_t size) {
  // On overflow the call fails and the old block stays: record the size as
  // SIZE_MAX (address 0 with a non-zero size means "failed").
  size_t bytes;
  const bool overflow = __builtin_mul_overflow(n, size, &bytes);
  if (overflow) bytes = SIZE_MAX;
  if (old != nullptr && pre::IsBootstrap(old)) {
    if (overflow) {
      errno = ENOMEM;
      return nullptr;
    }
    return ReallocFromBootstrap(old, bytes);
  }
  const pre::RealAllocator* real = pre::Real();
  if (real == nullptr) return Bootstrap(bytes, 16);
  return Realloc(Api::kReallocarray, old, bytes, [&] { return real->reallocarray(old, n, size); });
}

HEAPREC_EXPORT int posix_memalign(void** out, size_t alignment, size_t size) {
  const pre::RealAllocator* real = pre::Real();
  if (real == nullptr) {
    *out = Bootstrap(size, alignment);
    return *out != nullptr ? 0 : ENOMEM;
  }
  int rc = 0;
  Alloc(Api::kPosixMemalign, size, alignment, [&]() -> void* {
    rc = real->posix_memalign(out, alignment, size);
    return rc == 0 ? *out : nullptr;
  });
  return rc;
}

HEAPREC_EXPORT void* aligned_alloc(size_t alignment, size_t size) {
  const pre::RealAllocator* real = pre::Real();
  if (real == nullptr) return Bootstrap(size, alignment);
  return Alloc(Api::kAlignedAlloc, size, alignment,
               [&] { return real->aligned_alloc(alignment, size); });
}

HEAPREC_EXPORT void* memalign(size_t alignment, size_t size) {
  const pre::RealAllocator* real = pre::Real();
  if (real == nullptr) return Bootstrap(size, alignment);
  return Alloc(Api::kMemalign, size, alignment, [&] { return real->memalign(alignment, size); });
}

HEAPREC_EXPORT void* valloc(size_t size) {
  const pre::RealAllocator* real = pre::Real();
  if (real == nullptr) return Bootstrap(size, 4096);
  return Alloc(Api::kValloc, size, 0, [&] { return real->valloc(size); });
}

HEAPREC_EXPORT void* pvalloc(size_t size) {
  const pre::RealAllocator* real = pre::Real();
  if (real == nullptr) return Bootstrap(size, 4096);
  return Alloc(Api::kPvalloc, size, 0, [&] { return real->pvalloc(size); });
}
