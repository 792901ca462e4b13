// Recognizing and purging the active allocator through dlsym (allocator_runtime.h).
#include "replay/allocator_runtime.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <cstddef>

namespace heaprec::replay {

namespace {

std::string RealPath(const std::string& path) {
  char buf[PATH_MAX];
  return realpath(path.c_str(), buf) != nullptr ? std::string(buf) : path;
}

// The resolved file defining symbol in the global scope; "" if undefined.
std::string ObjectOf(const char* symbol) {
  void* address = dlsym(RTLD_DEFAULT, symbol);
  Dl_info info;
  if (address == nullptr || dladdr(address, &info) == 0 || info.dli_fname == nullptr) return "";
  return RealPath(info.dli_fname);
}

std::string BaseName(const std::string& path) { return path.substr(path.rfind('/') + 1); }

}  // namespace

std::string MallocObject() { return ObjectOf("malloc"); }

std::string CheckActiveAllocator(const AllocatorSpec& spec) {
  const std::string malloc_object = MallocObject();
  if (spec.library.empty()) {  // glibc
    if (BaseName(malloc_object).rfind("libc.so", 0) == 0) return "";
    return "expected glibc's malloc, but malloc resolves into " + malloc_object;
  }
  const std::string wanted = RealPath(spec.library);
  if (malloc_object != wanted) {
    return "expected " + spec.name + " (" + wanted +
           ") to serve malloc, but malloc resolves into " +
           (malloc_object.empty() ? std::string("nothing") : malloc_object);
  }
  if (!spec.marker.empty() && ObjectOf(spec.marker.c_str()) != wanted) {
    return spec.library + " serves malloc but does not define " + spec.marker + ": not " +
           spec.name;
  }
  return "";
}

const char* ReleaseFreeMemory() {
  const std::string serving = MallocObject();
  auto here = [&](const char* symbol) -> void* {
    return ObjectOf(symbol) == serving ? dlsym(RTLD_DEFAULT, symbol) : nullptr;
  };
  if (void* f = here("mallctl")) {
    using Mallctl = int (*)(const char*, void*, size_t*, void*, size_t);
    reinterpret_cast<Mallctl>(f)("arena.4096.purge", nullptr, nullptr, nullptr, 0);
    return "mallctl(arena.4096.purge)";
  }
  if (void* f = here("MallocExtension_ReleaseFreeMemory")) {
    reinterpret_cast<void (*)()>(f)();
    return "MallocExtension_ReleaseFreeMemory()";
  }
  if (void* f = here("mi_collect")) {
    reinterpret_cast<void (*)(bool)>(f)(true);
    return "mi_collect(true)";
  }
  if (void* f = here("malloc_trim")) {
    reinterpret_cast<int (*)(size_t)>(f)(0);
    return "malloc_trim(0)";
  }
  return "none";
}

}  // namespace heaprec::replay
