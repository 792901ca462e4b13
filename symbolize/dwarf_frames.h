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
// Finding the scopes of an address: the first address of a unit walks the
// unit's DIE tree once and keeps its functions and inlined subroutines with
// their address ranges (UnitIndex); every address of the unit is then a
// search in that index. libdw's dwarf_getscopes walks the tree from the
// unit's root for every address, twice with dwarf_getscopes_die: on a Python
// built with full DWARF, 3,400 addresses took 2.3 s that way. The same walk
// keeps the namespaces, classes and functions around each subprogram, which
// qualify the names of inlined functions. A unit that
// imports partial units (dwz) keeps libdw's walk, whose answers the index
// reproduces elsewhere.
//
// Internal to DwarfSymbolizer, which owns the Dwfl sessions. Keeps a cache of
// names and of unit indexes by DIE, valid while the modules it saw are alive.
// Not thread-safe; allocates.
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

  // A unit's functions, inlined subroutines and entry points, with the
  // nearest such DIE above each in the tree, and their address ranges.
  struct UnitIndex {
    struct Entry {
      Dwarf_Die die;
      int parent;  // index into entries, -1 at the top
      int depth;   // in the DIE tree
    };
    struct Range {
      Dwarf_Addr low, high;  // [low, high)
      int entry;
    };
    // A namespace, class, structure, union or function-like DIE, and the
    // nearest of those above it.
    struct Scope {
      Dwarf_Die die;
      int parent;  // index into scopes, -1 at the top
    };
    bool usable = true;  // false: the unit imports others
    std::vector<Entry> entries;
    std::vector<Scope> scopes;
    std::unordered_map<const void*, int> subprograms;  // Dwarf_Die::addr -> index into scopes
    std::vector<Range> ranges;                         // by low
    std::vector<Dwarf_Addr> max_high;  // max_high[i]: the largest high of ranges[0..i]
  };
  const UnitIndex& IndexOf(Dwarf_Die* cudie);
  // The function-like DIEs around dwarf_pc, innermost first, following the
  // tree upwards (an inlined subroutine, then what it was inlined into).
  std::vector<Dwarf_Die> FunctionScopes(Dwarf_Die* cudie, Dwarf_Addr dwarf_pc);

  std::unordered_map<const void*, std::string> qualified_;  // by Dwarf_Die::addr
  std::unordered_map<const void*, UnitIndex> units_;        // by the unit DIE's addr
  std::unordered_map<Dwfl_Module*, std::unique_ptr<SymtabIndex>> symtabs_;
};

}  // namespace heaprec::symbolize

#endif  // HEAPREC_SYMBOLIZE_DWARF_FRAMES_H_
