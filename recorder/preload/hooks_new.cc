// Every replaceable C++ operator new and delete, exported so that they take
// the place of libstdc++'s: each allocates from the real malloc family and
// records the call with its own Api, so new/free and new[]/delete mismatches
// show in the trace. Nothing here needs libstdc++ at run time: when an
// allocation fails, the next definition of the same operator (libstdc++'s,
// found with dlsym) is called outside the recorder, so new_handler and
// std::bad_alloc behave exactly as without heaprec.
#include <dlfcn.h>

#include <cstddef>
#include <new>

#include "format/api.h"
#include "recorder/preload/export.h"
#include "recorder/preload/hook_scope.h"
#include "recorder/preload/real_allocator.h"

using heaprec::format::Api;
namespace pre = heaprec::recorder::preload;

namespace {

using NewFn = void* (*)(size_t);
using NewNothrowFn = void* (*)(size_t, const std::nothrow_t&);
using NewAlignedFn = void* (*)(size_t, std::align_val_t);
using NewAlignedNothrowFn = void* (*)(size_t, std::align_val_t, const std::nothrow_t&);

void* RawAlloc(size_t size, size_t alignment) {
  const pre::RealAllocator* real = pre::Real();
  if (real == nullptr) {
    pre::CountBootstrap();
    return pre::BootstrapAlloc(size, alignment);
  }
  if (alignment == 0) return real->malloc(size == 0 ? 1 : size);
  void* p = nullptr;
  return real->posix_memalign(&p, alignment, size == 0 ? 1 : size) == 0 ? p : nullptr;
}

// Allocates and records; nullptr on failure (after recording the failure).
__attribute__((always_inline)) inline void* New(Api api, size_t size, size_t alignment) {
  return pre::RecordedAlloc(api, size, alignment, [&] { return RawAlloc(size, alignment); });
}

// The next definition of an operator, looked up on the first failure only.
// A plain pointer, not a function-local static: those need libstdc++'s guard.
template <typename F>
F Next(F& cache, const char* mangled) {
  if (cache == nullptr) cache = reinterpret_cast<F>(dlsym(RTLD_NEXT, mangled));
  return cache;
}

NewFn g_new, g_new_array;
NewNothrowFn g_new_nothrow, g_new_array_nothrow;
NewAlignedFn g_new_aligned, g_new_array_aligned;
NewAlignedNothrowFn g_new_aligned_nothrow, g_new_array_aligned_nothrow;

}  // namespace

HEAPREC_EXPORT void* operator new(size_t size) {
  if (void* p = New(Api::kNew, size, 0)) return p;
  NewFn next = Next(g_new, "_Znwm");
  return next != nullptr ? next(size) : nullptr;
}

HEAPREC_EXPORT void* operator new[](size_t size) {
  if (void* p = New(Api::kNewArray, size, 0)) return p;
  NewFn next = Next(g_new_array, "_Znam");
  return next != nullptr ? next(size) : nullptr;
}

HEAPREC_EXPORT void* operator new(size_t size, const std::nothrow_t& tag) noexcept {
  if (void* p = New(Api::kNewNothrow, size, 0)) return p;
  NewNothrowFn next = Next(g_new_nothrow, "_ZnwmRKSt9nothrow_t");
  return next != nullptr ? next(size, tag) : nullptr;
}

HEAPREC_EXPORT void* operator new[](size_t size, const std::nothrow_t& tag) noexcept {
  if (void* p = New(Api::kNewArrayNothrow, size, 0)) return p;
  NewNothrowFn next = Next(g_new_array_nothrow, "_ZnamRKSt9nothrow_t");
  return next != nullptr ? next(size, tag) : nullptr;
}

HEAPREC_EXPORT void* operator new(size_t size, std::align_val_t al) {
  if (void* p = New(Api::kNewAligned, size, static_cast<size_t>(al))) return p;
  NewAlignedFn next = Next(g_new_aligned, "_ZnwmSt11align_val_t");
  return next != nullptr ? next(size, al) : nullptr;
}

HEAPREC_EXPORT void* operator new[](size_t size, std::align_val_t al) {
  if (void* p = New(Api::kNewArrayAligned, size, static_cast<size_t>(al))) return p;
  NewAlignedFn next = Next(g_new_array_aligned, "_ZnamSt11align_val_t");
  return next != nullptr ? next(size, al) : nullptr;
}

HEAPREC_EXPORT void* operator new(size_t size, std::align_val_t al,
                                  const std::nothrow_t& tag) noexcept {
  if (void* p = New(Api::kNewAlignedNothrow, size, static_cast<size_t>(al))) return p;
  NewAlignedNothrowFn next = Next(g_new_aligned_nothrow, "_ZnwmSt11align_val_tRKSt9nothrow_t");
  return next != nullptr ? next(size, al, tag) : nullptr;
}

HEAPREC_EXPORT void* operator new[](size_t size, std::align_val_t al,
                                    const std::nothrow_t& tag) noexcept {
  if (void* p = New(Api::kNewArrayAlignedNothrow, size, static_cast<size_t>(al))) return p;
  NewAlignedNothrowFn next =
      Next(g_new_array_aligned_nothrow, "_ZnamSt11align_val_tRKSt9nothrow_t");
  return next != nullptr ? next(size, al, tag) : nullptr;
}

HEAPREC_EXPORT void operator delete(void* p) noexcept { pre::RecordedFree(Api::kDelete, p, 0, 0); }
HEAPREC_EXPORT void operator delete[](void* p) noexcept {
  pre::RecordedFree(Api::kDeleteArray, p, 0, 0);
}
HEAPREC_EXPORT void operator delete(void* p, size_t size) noexcept {
  pre::RecordedFree(Api::kDeleteSized, p, size, 0);
}
HEAPREC_EXPORT void operator delete[](void* p, size_t size) noexcept {
  pre::RecordedFree(Api::kDeleteArraySized, p, size, 0);
}
HEAPREC_EXPORT void operator delete(void* p, const std::nothrow_t&) noexcept {
  pre::RecordedFree(Api::kDeleteNothrow, p, 0, 0);
}
HEAPREC_EXPORT void operator delete[](void* p, const std::nothrow_t&) noexcept {
  pre::RecordedFree(Api::kDeleteArrayNothrow, p, 0, 0);
}
HEAPREC_EXPORT void operator delete(void* p, std::align_val_t al) noexcept {
  pre::RecordedFree(Api::kDeleteAligned, p, 0, static_cast<size_t>(al));
}
HEAPREC_EXPORT void operator delete[](void* p, std::align_val_t al) noexcept {
  pre::RecordedFree(Api::kDeleteArrayAligned, p, 0, static_cast<size_t>(al));
}
HEAPREC_EXPORT void operator delete(void* p, size_t size, std::align_val_t al) noexcept {
  pre::RecordedFree(Api::kDeleteSizedAligned, p, size, static_cast<size_t>(al));
}
HEAPREC_EXPORT void operator delete[](void* p, size_t size, std::align_val_t al) noexcept {
  pre::RecordedFree(Api::kDeleteArraySizedAligned, p, size, static_cast<size_t>(al));
}
HEAPREC_EXPORT void operator delete(void* p, std::align_val_t al, const std::nothrow_t&) noexcept {
  pre::RecordedFree(Api::kDeleteAlignedNothrow, p, 0, static_cast<size_t>(al));
}
HEAPREC_EXPORT void operator delete[](void* p, std::align_val_t al,
                                      const std::nothrow_t&) noexcept {
  pre::RecordedFree(Api::kDeleteArrayAlignedNothrow, p, 0, static_cast<size_t>(al));
}
