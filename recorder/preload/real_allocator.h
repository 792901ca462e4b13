// The allocator the traced program would have used without heaprec: the next
// definition of each malloc-family function after libheaprec.so, found with
// dlsym(RTLD_NEXT) (glibc's, or a tcmalloc/jemalloc the program links).
//
// dlsym may itself call malloc or calloc before the pointers are known; those
// calls are served from a static bootstrap arena that Free() recognizes, so
// nothing is ever handed to the wrong free.
//
// Thread-safe; async-signal-unsafe only where the real allocator is. Never
// allocates from the heap itself. Called by the hooks (hooks_*.cc).
#ifndef HEAPREC_RECORDER_PRELOAD_REAL_ALLOCATOR_H_
#define HEAPREC_RECORDER_PRELOAD_REAL_ALLOCATOR_H_

#include <atomic>
#include <cstddef>

namespace heaprec::recorder::preload {

struct RealAllocator {
  void* (*malloc)(size_t);
  void (*free)(void*);
  void* (*calloc)(size_t, size_t);
  void* (*realloc)(void*, size_t);
  void* (*reallocarray)(void*, size_t, size_t);
  int (*posix_memalign)(void**, size_t, size_t);
  void* (*aligned_alloc)(size_t, size_t);
  void* (*memalign)(size_t, size_t);
  void* (*valloc)(size_t);
  void* (*pvalloc)(size_t);
};

// The resolved functions (g_state 2; 0 = not resolved, 1 = resolving).
extern RealAllocator g_real;
extern std::atomic<int> g_state;
const RealAllocator* RealSlow();

// The resolved functions, or nullptr while resolution is in progress on this
// or another thread (then use the Bootstrap* functions). Inline: one load
// on every hook's way.
inline const RealAllocator* Real() {
  if (__builtin_expect(g_state.load(std::memory_order_acquire) == 2, 1)) return &g_real;
  return RealSlow();
}

// Resolves the real functions now (idempotent); called from the library
// constructor and lazily by Real().
void ResolveRealAllocator();

// Resolves them again in the global scope (dlsym(RTLD_DEFAULT), never an
// executable's PLT entry): for a library loaded by dlopen into a running
// process (heaprec -p), where the next definition after it is libc's even
// when the program's allocator is another. Called before any hook is routed to the library
// (attach.cc), so no call is between the two answers.
void ResolveRealAllocatorGlobally();

// A bump allocator over a static arena for calls made while resolving.
// Returns nullptr when the arena is exhausted.
void* BootstrapAlloc(size_t size, size_t alignment);
inline constexpr size_t kArenaBytes = 256 * 1024;
extern unsigned char g_arena[kArenaBytes];
inline bool IsBootstrap(const void* p) {
  const auto* c = static_cast<const unsigned char*>(p);
  return c >= g_arena && c < g_arena + kArenaBytes;
}
// Usable size of a bootstrap block (for realloc out of the arena).
size_t BootstrapSize(const void* p);

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_REAL_ALLOCATOR_H_
