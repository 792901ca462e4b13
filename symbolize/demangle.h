// Demangle: a C++ symbol's readable name ("_ZN3foo3barEv" -> "foo::bar()"),
// or the name as it is when it is not a mangled C++ name (or cannot be
// demangled); "" for nullptr. glibc's internal aliases lose their "__GI_"
// prefix ("__GI__dl_allocate_tls" -> "_dl_allocate_tls"), as valgrind and
// gdb name them. Used by the symbolizer for ELF symbols and DWARF linkage
// names. Allocates.
#ifndef HEAPREC_SYMBOLIZE_DEMANGLE_H_
#define HEAPREC_SYMBOLIZE_DEMANGLE_H_

#include <string>

namespace heaprec::symbolize {

std::string Demangle(const char* name);

}  // namespace heaprec::symbolize

#endif  // HEAPREC_SYMBOLIZE_DEMANGLE_H_
