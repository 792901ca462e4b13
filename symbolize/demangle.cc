// Demangle through the C++ ABI's __cxa_demangle (demangle.h).
#include "symbolize/demangle.h"

#include <cxxabi.h>

#include <cstdlib>

namespace heaprec::symbolize {

std::string Demangle(const char* name) {
  if (name == nullptr) return "";
  // glibc's internal aliases (__GI_malloc for malloc, hidden_def) are the
  // same functions under their public names, as other tools print them.
  if (name[0] == '_' && name[1] == '_' && name[2] == 'G' && name[3] == 'I' && name[4] == '_' &&
      name[5] != '\0') {
    name += 5;
  }
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
