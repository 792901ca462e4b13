// SymtabIndex: the ELF symbol table of one libdwfl module, sorted once by
// address, answering "which function holds this address" by binary search.
//
// libdwfl's dwfl_module_addrinfo answers the same question by reading every
// symbol of the table on each call: for a stripped program with thousands of
// exported symbols (python3, cppcheck, libstdc++) and thousands of distinct
// return addresses that was most of the launcher's time after the program
// exited (cppcheck: ~0.12 s of ~0.16 s symbolizing).
//
// Which symbol (the choice dwfl_module_addrinfo makes for code addresses):
//   - only named code symbols count: STT_FUNC, STT_GNU_IFUNC, STT_NOTYPE,
//     defined (not SHN_UNDEF);
//   - among sized symbols whose [start, start + size) holds pc: the best
//     binding first (GLOBAL, then WEAK, then LOCAL), then the highest start,
//     then the first in table order;
//   - else the highest sizeless label (assembly) at or below pc, in pc's
//     section, unless a sized symbol starting at or below pc ends above the
//     label (pc then lies after that symbol's end, not in the label's code).
// Names are demangled (demangle.h) once per symbol.
//
// Built from libdwfl (dwfl_module_getsymtab / dwfl_module_getsym_info), so
// it covers .symtab, .dynsym and the MiniDebugInfo table alike. Valid while
// the module lives. Not thread-safe; allocates.
#ifndef HEAPREC_SYMBOLIZE_SYMTAB_INDEX_H_
#define HEAPREC_SYMBOLIZE_SYMTAB_INDEX_H_

#include <elfutils/libdwfl.h>

#include <cstdint>
#include <string>
#include <vector>

namespace heaprec::symbolize {

class SymtabIndex {
 public:
  explicit SymtabIndex(Dwfl_Module* mod);

  // The demangled name of the function holding pc (an address in the
  // process's address space), or "" if no symbol does.
  const std::string& NameAt(Dwarf_Addr pc);

 private:
  struct Symbol {
    Dwarf_Addr start;
    Dwarf_Addr end;        // start + size; start for a sizeless label
    Dwarf_Addr cover;      // highest end of the sized symbols up to this one in sorted order
    uint32_t order;        // index in the table
    uint32_t section;      // section index (shndx)
    int binding;           // 3 GLOBAL, 2 WEAK, 1 LOCAL
    const char* raw_name;  // libelf's string, alive with the module
    std::string name;      // demangled on first use
    bool demangled = false;
  };

  Dwfl_Module* mod_;
  std::vector<Symbol> symbols_;  // by start, then table order
  std::string none_;
};

}  // namespace heaprec::symbolize

#endif  // HEAPREC_SYMBOLIZE_SYMTAB_INDEX_H_
