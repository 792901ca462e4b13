// What a bench worker asks the allocator it runs under, at run time only
// (dlsym: heapreplay has no link-time dependency on any allocator).
//
// CheckActiveAllocator: is `spec` really the allocator serving malloc in
// this process? malloc must resolve (dlsym(RTLD_DEFAULT)) into spec's
// library (glibc: libc.so.6), and spec's marker symbol, if any, must be
// defined by that same library. ReleaseFreeMemory: ask the active allocator
// to return free memory to the system (malloc_trim(0), mallctl
// "arena.4096.purge", MallocExtension_ReleaseFreeMemory, mi_collect(true)),
// whichever the library that serves malloc defines.
// Called by the worker's main thread before and after the replay; they may
// allocate a little (dlerror).
#ifndef HEAPREC_REPLAY_ALLOCATOR_RUNTIME_H_
#define HEAPREC_REPLAY_ALLOCATOR_RUNTIME_H_

#include <string>

#include "replay/allocators.h"

namespace heaprec::replay {

// The file of the object that serves malloc here (resolved path).
std::string MallocObject();

// Empty when spec is active; else one line saying what serves malloc.
std::string CheckActiveAllocator(const AllocatorSpec& spec);

// Returns the name of the call made ("none" if the allocator offers none).
const char* ReleaseFreeMemory();

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_ALLOCATOR_RUNTIME_H_
