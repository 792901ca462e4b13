// Demangle through the C++ ABI's __cxa_demangle (demangle.h).
#include "symbolize/demangle.h"

#include <cxxabi.h>

#include <cstdlib>

namespace heaprec::symbolize {

std::string Demangle(const char* name) {
  if (name == nullptr) return "";
  if (name[0] == '_' && name[1] == 'Z') {
    int status = 0;
    char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    if (demangled != nullptr) {
      std::string result(demangled);
      std::free(demangled);
      return result;
    }
  }
  return name;
}

}  // namespace heaprec::symbolize
