// DwarfFrames: the source frames of one code address of a libdwfl module, as
// eu-addr2line -i finds them: libdw's scopes give the inlined subroutines
// around the address and the function they were inlined into, the line table
// gives the innermost location, and each inlined subroutine's call site
// (DW_AT_call_file/line/column) gives the location in the frame around it.
// Without DWARF for the address, the ELF symbol table's name alone.
//
// Function names are the demangled linkage names (with parameter types, as
// the ELF symbol table has them). An inlined function often has no linkage
// name in DWARF; it gets its DW_AT_name qualified with the namespaces, classes
// and functions around its declaration ("std::vector<int>::push_back").
//
// Internal to DwarfSymbolizer, which owns the Dwfl sessions. Keeps a cache of
// names by DIE, valid while the modules it saw are alive. Not thread-safe;
// allocates.
#ifndef HEAPREC_SYMBOLIZE_DWARF_FRAMES_H_
#define HEAPREC_SYMBOLIZE_DWARF_FRAMES_H_

#include <elfutils/libdwfl.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/records.h"
#include "symbolize/symtab_index.h"

namespace heaprec::symbolize {

class DwarfFrames {
 public:
  // Frames of pc (an address inside mod, in the process's address space),
  // innermost inlined frame first, the real function last; empty when
  // nothing is known.
  std::vector<format::SourceFrame> At(Dwfl_Module* mod, Dwarf_Addr pc);

 private:
  // The ELF symbol's name for pc (SymtabIndex), "" if none.
  std::string SymtabName(Dwfl_Module* mod, Dwarf_Addr pc);
  std::string FunctionName(Dwarf_Die* die, int depth);
  std::string QualifiedName(Dwarf_Die* die, int depth);

  std::unordered_map<const void*, std::string> qualified_;  // by Dwarf_Die::addr
  std::unordered_map<Dwfl_Module*, std::unique_ptr<SymtabIndex>> symtabs_;
};

}  // namespace heaprec::symbolize

#endif  // HEAPREC_SYMBOLIZE_DWARF_FRAMES_H_
