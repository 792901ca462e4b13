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
#include "recorder/preload/export.h"
#include "recorder/preload/hook_scope.h"
#include "recorder/preload/real_allocator.h"
#include "recorder/preload/recorder.h"
#include "recorder/preload/sampler.h"

using heaprec::format::Api;
namespace pre = heaprec::recorder::preload;

namespace {

void* Bootstrap(size_t size, size_t alignment) {
  pre::CountBootstrap();
  return pre::BootstrapAlloc(size, alignment);
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

// Realloc when sampling (sampler.h): the release of the old block if it was
// a sampled one, and a fresh sampling decision for the new block, each
// recorded as Realloc records it: both as a realloc; only the old, as its
// release (address 0, size 0: the first half of a move); only the new, as a
// realloc(NULL, size). A failed call leaves the old block as it was.
template <typename Call>
__attribute__((noinline)) void* SampledRealloc(Api api, void* old, size_t size, Call call) {
  const bool old_sampled = pre::TakeSampled(old);
  const bool new_sampled = size != 0 && pre::SampleAllocation(size);
  if (!old_sampled && !new_sampled) return call();
  pre::HookScope scope;
  if (!scope.recording()) return call();
  const uint64_t before = old_sampled ? pre::TakeSeq() : 0;
  void* p = call();
  const uintptr_t frame = HEAPREC_HOOK_FRAME();
  scope.Record([&](pre::ThreadState& ts) {
    const auto o = reinterpret_cast<uint64_t>(old);
    const auto n = reinterpret_cast<uint64_t>(p);
    if (p == nullptr && size != 0) {  // failed: the old block stays
      if (old_sampled) {
        pre::WriteEvent(ts, before, api, pre::Hide(uint64_t{0}), size, o, pre::CaptureStack(frame));
        pre::KeepSampled(old);
      }
      return;
    }
    const uint32_t stack = pre::CaptureStack(frame);
    if (old_sampled && (!new_sampled || p != old)) {
      pre::WriteEvent(ts, before, api, pre::Hide(uint64_t{0}), 0, o, stack);  // released
    }
    if (new_sampled && p != nullptr) {
      const bool in_place = old_sampled && p == old;
      pre::WriteEvent(ts, in_place ? before : pre::TakeSeq(), api, pre::Hide(n), size,
                      in_place ? o : 0, stack);
      pre::KeepSampled(p);
    }
  });
  return p;
}

// realloc and reallocarray: size is the new size in bytes (SIZE_MAX on
// overflow). The seq of the old block's release is taken before the call
// (the block may be released inside it), so nothing is misordered between.
template <typename Call>
__attribute__((always_inline)) inline void* Realloc(Api api, void* old, size_t size, Call call) {
  // realloc(NULL, n) only allocates: its seq comes after, as for malloc.
  if (old == nullptr) return pre::RecordedAlloc(api, size, 0, call);
  if (pre::Sampling()) return SampledRealloc(api, old, size, call);
  pre::HookScope scope;
  if (!scope.recording()) return call();
  const uint64_t before = pre::TakeSeq();
  void* p = call();
  const uintptr_t frame = HEAPREC_HOOK_FRAME();
  scope.Record([&](pre::ThreadState& ts) {
    const auto o = reinterpret_cast<uint64_t>(old);
    const auto n = reinterpret_cast<uint64_t>(p);
    if (pre::RecordingPaused()) {
      // Paused (recording_switch.h): the old block's release only, no stack;
      // the block returned is not recorded. A failed call keeps the old one.
      pre::WriteEvent(ts, before, api, pre::Hide(uint64_t{0}), p == nullptr && size != 0 ? size : 0,
                      o, 0);
      return;
    }
    const uint32_t stack = pre::CaptureStack(frame);
    if (p == nullptr || p == old) {
      // One event: failed, freed by size 0, or resized in place.
      pre::WriteEvent(ts, before, api, pre::Hide(n), p == nullptr && size == 0 ? 0 : size, o,
                      stack);
    } else {
      // Moved: the old block was released inside the call, the new one is
      // live from now on.
      pre::WriteEvent(ts, before, api, pre::Hide(uint64_t{0}), 0, o, stack);
      pre::WriteEvent(ts, pre::TakeSeq(), api, pre::Hide(n), size, 0, stack);
    }
  });
  return p;
}

}  // namespace

HEAPREC_EXPORT_C void* malloc(size_t size) {
  const pre::RealAllocator* real = pre::Real();
  if (real == nullptr) return Bootstrap(size, 16);
  return pre::RecordedAlloc(Api::kMalloc, size, 0, [&] { return real->malloc(size); });
}

HEAPREC_EXPORT_C void free(void* p) { pre::RecordedFree(Api::kFree, p, 0, 0); }

HEAPREC_EXPORT_C void* calloc(size_t n, size_t size) {
  const pre::RealAllocator* real = pre::Real();
  size_t bytes;
  if (__builtin_mul_overflow(n, size, &bytes)) bytes = SIZE_MAX;
  if (real == nullptr) return Bootstrap(bytes, 16);  // the static arena is zeroed
  return pre::RecordedAlloc(Api::kCalloc, bytes, 0, [&] { return real->calloc(n, size); });
}

HEAPREC_EXPORT_C void* realloc(void* old, size_t size) {
  if (old != nullptr && pre::IsBootstrap(old)) return ReallocFromBootstrap(old, size);
  const pre::RealAllocator* real = pre::Real();
  if (real == nullptr) return Bootstrap(size, 16);
  return Realloc(Api::kRealloc, old, size, [&] { return real->realloc(old, size); });
}

HEAPREC_EXPORT_C void* reallocarray(void* old, size_t n, size_t size) {
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

HEAPREC_EXPORT_C int posix_memalign(void** out, size_t alignment, size_t size) {
  const pre::RealAllocator* real = pre::Real();
  if (real == nullptr) {
    *out = Bootstrap(size, alignment);
    return *out != nullptr ? 0 : ENOMEM;
  }
  int rc = 0;
  pre::RecordedAlloc(Api::kPosixMemalign, size, alignment, [&]() -> void* {
    rc = real->posix_memalign(out, alignment, size);
    return rc == 0 ? *out : nullptr;
  });
  return rc;
}

HEAPREC_EXPORT_C void* aligned_alloc(size_t alignment, size_t size) {
  const pre::RealAllocator* real = pre::Real();
  if (real == nullptr) return Bootstrap(size, alignment);
  return pre::RecordedAlloc(Api::kAlignedAlloc, size, alignment,
                            [&] { return real->aligned_alloc(alignment, size); });
}

HEAPREC_EXPORT_C void* memalign(size_t alignment, size_t size) {
  const pre::RealAllocator* real = pre::Real();
  if (real == nullptr) return Bootstrap(size, alignment);
  return pre::RecordedAlloc(Api::kMemalign, size, alignment,
                            [&] { return real->memalign(alignment, size); });
}

HEAPREC_EXPORT_C void* valloc(size_t size) {
  const pre::RealAllocator* real = pre::Real();
  if (real == nullptr) return Bootstrap(size, 4096);
  return pre::RecordedAlloc(Api::kValloc, size, 0, [&] { return real->valloc(size); });
}

HEAPREC_EXPORT_C void* pvalloc(size_t size) {
  const pre::RealAllocator* real = pre::Real();
  if (real == nullptr) return Bootstrap(size, 4096);
  return pre::RecordedAlloc(Api::kPvalloc, size, 0, [&] { return real->pvalloc(size); });
}
