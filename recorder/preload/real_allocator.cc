// RealAllocator: dlsym(RTLD_NEXT) (or RTLD_DEFAULT) resolution and the
// bootstrap arena.
#include "recorder/preload/real_allocator.h"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstdint>

namespace heaprec::recorder::preload {

alignas(64) unsigned char g_arena[kArenaBytes];
RealAllocator g_real;
std::atomic<int> g_state{0};

namespace {

std::atomic<size_t> g_arena_used{0};

void* g_scope = RTLD_NEXT;

struct Definition {
  const char* name;
  const void* own;  // an address in libheaprec.so
  void* found = nullptr;
};

// The first loaded object (in load order, which is the global scope's for
// the objects loaded at start) that defines name itself: not this library,
// and not an executable whose symbol is only its PLT entry.
int FindDefinition(dl_phdr_info* info, size_t, void* data) {
  auto* d = static_cast<Definition*>(data);
  if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;  // the executable
  Dl_info own;
  if (dladdr(d->own, &own) != 0 && own.dli_fbase == reinterpret_cast<void*>(info->dlpi_addr)) {
    return 0;
  }
  void* handle = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return 0;
  void* p = dlsym(handle, d->name);
  dlclose(handle);
  Dl_info where;
  ElfW(Sym)* sym = nullptr;
  if (p == nullptr || dladdr1(p, &where, reinterpret_cast<void**>(&sym), RTLD_DL_SYMENT) == 0 ||
      where.dli_fbase != reinterpret_cast<void*>(info->dlpi_addr) || sym == nullptr ||
      sym->st_shndx == SHN_UNDEF) {
    return 0;  // defined in one of its dependencies, or not at all
  }
  d->found = p;
  return 1;
}

// dlsym(RTLD_DEFAULT) answers with an executable's PLT entry where the
// executable takes the function's address (a "canonical PLT" symbol,
// undefined in it: python3.11's malloc and free): that entry jumps through
// the GOT entry heaprec -p routes to the hooks, so it is never the real
// function. Then the first object that defines the name is.
void* GlobalDefinition(const char* name) {
  void* p = dlsym(RTLD_DEFAULT, name);
  Dl_info where;
  ElfW(Sym)* sym = nullptr;
  if (p != nullptr && dladdr1(p, &where, reinterpret_cast<void**>(&sym), RTLD_DL_SYMENT) != 0 &&
      (sym == nullptr || sym->st_shndx != SHN_UNDEF)) {
    return p;
  }
  Definition d{name, reinterpret_cast<const void*>(&GlobalDefinition)};
  dl_iterate_phdr(FindDefinition, &d);
  return d.found != nullptr ? d.found : p;
}

template <typename F>
void Resolve(F*& slot, const char* name) {
  slot =
      reinterpret_cast<F*>(g_scope == RTLD_DEFAULT ? GlobalDefinition(name) : dlsym(g_scope, name));
}

void ResolveAll() {
  Resolve(g_real.malloc, "malloc");
  Resolve(g_real.free, "free");
  Resolve(g_real.calloc, "calloc");
  Resolve(g_real.realloc, "realloc");
  Resolve(g_real.reallocarray, "reallocarray");
  Resolve(g_real.posix_memalign, "posix_memalign");
  Resolve(g_real.aligned_alloc, "aligned_alloc");
  Resolve(g_real.memalign, "memalign");
  Resolve(g_real.valloc, "valloc");
  Resolve(g_real.pvalloc, "pvalloc");
}

}  // namespace

void ResolveRealAllocator() {
  int expected = 0;
  if (!g_state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) return;
  ResolveAll();
  g_state.store(2, std::memory_order_release);
}

void ResolveRealAllocatorGlobally() {
  ResolveRealAllocator();
  g_scope = RTLD_DEFAULT;
  ResolveAll();
}

const RealAllocator* RealSlow() {
  const int state = g_state.load(std::memory_order_acquire);
  if (state == 2) return &g_real;
  if (state == 0) {
    ResolveRealAllocator();
    if (g_state.load(std::memory_order_acquire) == 2) return &g_real;
  }
  return nullptr;
}

// Each bootstrap block is preceded by 16 bytes holding its size.
void* BootstrapAlloc(size_t size, size_t alignment) {
  if (alignment < 16) alignment = 16;
  if (size > kArenaBytes || alignment > 4096) return nullptr;
  size_t used = g_arena_used.load(std::memory_order_relaxed);
  for (;;) {
    const uintptr_t base = reinterpret_cast<uintptr_t>(g_arena);
    uintptr_t start = (base + used + 16 + alignment - 1) & ~(uintptr_t{alignment} - 1);
    const size_t end = start + size - base;
    if (end > kArenaBytes) return nullptr;
    if (g_arena_used.compare_exchange_weak(used, end, std::memory_order_relaxed)) {
      *reinterpret_cast<size_t*>(start - 16) = size;
      return reinterpret_cast<void*>(start);
    }
  }
}

size_t BootstrapSize(const void* p) {
  return *reinterpret_cast<const size_t*>(static_cast<const unsigned char*>(p) - 16);
}

}  // namespace heaprec::recorder::preload
