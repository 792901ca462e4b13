// Built with -g0 (analyzers/BUILD.bazel): no DWARF for this unit.
#include "analyzers/testdata/no_dwarf.h"

namespace heaprec::analyzers::testdata {

__attribute__((noinline)) uint64_t CallWithoutDebugInfo(uint64_t (*fn)()) {
  uint64_t result = fn();
  asm volatile("" : "+r"(result));  // keeps the call a call, not a tail jump
  return result;
}

}  // namespace heaprec::analyzers::testdata
