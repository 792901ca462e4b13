// Demangle: a C++ symbol's readable name ("_ZN3foo3barEv" -> "foo::bar()"),
// or the name as it is when it is not a mangled C++ name (or cannot be
// demangled); "" for nullptr. Used by the symbolizer for ELF symbols and
// DWARF linkage names. Allocates.
#ifndef HEAPREC_ANALYZERS_DEMANGLE_H_
#define HEAPREC_ANALYZERS_DEMANGLE_H_

#include <string>

namespace heaprec::analyzers {

std::string Demangle(const char* name);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_DEMANGLE_H_
