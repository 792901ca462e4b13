// The allocators heapreplay --bench knows: name, library, Debian package and
// a symbol only that allocator exports (how a worker recognizes it).
//
//   std::vector<AllocatorSpec> list;
//   if (!ParseAllocators("glibc,jemalloc,/opt/lib/libfoo.so", &list, &error)) ...
//   MissingLibrary(spec)  // "" or the line to print
//
// Paths are Debian 12's (x86_64). A path given by the user is taken as an
// allocator named by its file name, with no marker symbol. Pure functions;
// allocate; for the bench command.
#ifndef HEAPREC_REPLAY_ALLOCATORS_H_
#define HEAPREC_REPLAY_ALLOCATORS_H_

#include <string>
#include <vector>

namespace heaprec::replay {

struct AllocatorSpec {
  std::string name;     // "glibc", "jemalloc", ... or the file name of a path
  std::string library;  // what LD_PRELOAD gets; empty for glibc
  std::string package;  // Debian package providing library; empty if unknown
  std::string marker;   // a symbol only this allocator defines; empty if none
};

bool ParseAllocators(const std::string& list, std::vector<AllocatorSpec>* out, std::string* error);

// Empty when the library is there (or none is needed); else one line naming
// it and the package that provides it.
std::string MissingLibrary(const AllocatorSpec& spec);

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_ALLOCATORS_H_
