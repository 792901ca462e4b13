// A function compiled without debug information (-g0), for the symbolizer's
// test of the ELF symbol table fallback. Test-only; thread-safe; no allocation.
#ifndef HEAPREC_SYMBOLIZE_TESTDATA_NO_DWARF_H_
#define HEAPREC_SYMBOLIZE_TESTDATA_NO_DWARF_H_

#include <cstdint>

namespace heaprec::symbolize::testdata {

// Calls fn and returns its result; fn's return address is therefore inside
// this function, in code without DWARF.
uint64_t CallWithoutDebugInfo(uint64_t (*fn)());

}  // namespace heaprec::symbolize::testdata

#endif  // HEAPREC_SYMBOLIZE_TESTDATA_NO_DWARF_H_
