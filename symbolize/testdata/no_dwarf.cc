// Built with -g0 (symbolize/BUILD.bazel): no DWARF for this unit.
#include "symbolize/testdata/no_dwarf.h"

namespace heaprec::symbolize::testdata {

__attribute__((noinline)) uint64_t CallWithoutDebugInfo(uint64_t (*fn)()) {
  uint64_t result = fn();
  asm volatile("" : "+r"(result));  // keeps the call a call, not a tail jump
  return result;
}

}  // namespace heaprec::symbolize::testdata
