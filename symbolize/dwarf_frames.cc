// DwarfFrames: scopes, line table and call sites of one address (see
// dwarf_frames.h).
#include "symbolize/dwarf_frames.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <utility>

#include "symbolize/demangle.h"
#include "symbolize/symtab_index.h"

namespace heaprec::symbolize {
namespace {

using format::SourceFrame;

// Bounds the walks along DIE references and enclosing functions, against
// malformed (cyclic) DWARF.
constexpr int kMaxDepth = 16;

const char* StringAttr(Dwarf_Die* die, unsigned int name) {
  Dwarf_Attribute attr;
  return dwarf_formstring(dwarf_attr_integrate(die, name, &attr));
}

uint32_t UdataOr0(Dwarf_Die* die, unsigned int name) {
  Dwarf_Attribute attr;
  Dwarf_Word value = 0;
  if (dwarf_formudata(dwarf_attr(die, name, &attr), &value) != 0) return 0;
  return static_cast<uint32_t>(value);
}

// The end of die's DW_AT_abstract_origin / DW_AT_specification chain: the
// declaration, which sits among the namespaces and classes it belongs to.
Dwarf_Die Declaration(Dwarf_Die* die) {
  Dwarf_Die decl = *die;
  for (int i = 0; i < kMaxDepth; ++i) {
    Dwarf_Attribute attr;
    Dwarf_Attribute* ref = dwarf_attr(&decl, DW_AT_abstract_origin, &attr);
    if (ref == nullptr) ref = dwarf_attr(&decl, DW_AT_specification, &attr);
    Dwarf_Die next;
    if (ref == nullptr || dwarf_formref_die(ref, &next) == nullptr) break;
    decl = next;
  }
  return decl;
}

// Where an inlined subroutine was called from: DW_AT_call_file/line/column,
// the file resolved in the line table of the unit holding the DIE.
SourceFrame CallSite(Dwarf_Die* inlined) {
  SourceFrame site;
  Dwarf_Attribute attr;
  Dwarf_Word file_index = 0;
  Dwarf_Die cu;
  Dwarf_Files* files = nullptr;
  size_t nfiles = 0;
  if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_file, &attr), &file_index) == 0 &&
      dwarf_diecu(inlined, &cu, nullptr, nullptr) != nullptr &&
      dwarf_getsrcfiles(&cu, &files, &nfiles) == 0 && file_index < nfiles) {
    const char* name = dwarf_filesrc(files, file_index, nullptr, nullptr);
    if (name != nullptr) site.file = name;
  }
  site.line = UdataOr0(inlined, DW_AT_call_line);
  site.column = UdataOr0(inlined, DW_AT_call_column);
  return site;
}

// The line table's location of pc (no function), from a row inside scope
// (the real function around pc, or the unit): the row before pc can belong
// to other code when pc has none (code the linker discarded sorts first, and
// GCC leaves some .cold parts without rows).
SourceFrame LineAt(Dwarf_Die* cudie, Dwarf_Die* scope, Dwarf_Addr dwarf_pc) {
  SourceFrame location;
  Dwarf_Line* line = dwarf_getsrc_die(cudie, dwarf_pc);
  Dwarf_Addr line_pc = 0;
  if (line == nullptr || dwarf_lineaddr(line, &line_pc) != 0 || dwarf_haspc(scope, line_pc) <= 0) {
    return location;
  }
  const char* file = dwarf_linesrc(line, nullptr, nullptr);
  if (file != nullptr) location.file = file;
  int lineno = 0;
  int column = 0;
  if (dwarf_lineno(line, &lineno) == 0 && lineno > 0) location.line = lineno;
  if (dwarf_linecol(line, &column) == 0 && column > 0) location.column = column;
  return location;
}

// The scopes containing pc, innermost first, along the DIE tree: each inlined
// subroutine is followed by what it was inlined into (dwarf_getscopes alone
// would continue with its abstract origin's scopes). Empty without DWARF.
std::vector<Dwarf_Die> ScopesAt(Dwarf_Die* cudie, Dwarf_Addr dwarf_pc) {
  std::vector<Dwarf_Die> chain;
  Dwarf_Die* scopes = nullptr;
  if (dwarf_getscopes(cudie, dwarf_pc, &scopes) > 0) {
    Dwarf_Die* tree = nullptr;
    const int n = dwarf_getscopes_die(&scopes[0], &tree);
    if (n > 0) chain.assign(tree, tree + n);
    std::free(tree);
  }
  std::free(scopes);
  return chain;
}

bool IsFunction(int tag) {
  return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_entry_point;
}

// The scopes whose names qualify a function's: namespaces and named types.
bool IsQualifying(int tag) {
  return tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
         tag == DW_TAG_union_type;
}

// Bounds the unit walk's recursion, against malformed DWARF.
constexpr int kMaxTreeDepth = 512;

}  // namespace

const DwarfFrames::UnitIndex& DwarfFrames::IndexOf(Dwarf_Die* cudie) {
  auto [it, inserted] = units_.try_emplace(cudie->addr);
  UnitIndex& index = it->second;
  if (!inserted) return index;
  // Depth-first over the tree; parent is the nearest function-like DIE above,
  // scope the nearest scope that qualifies names.
  struct Walk {
    UnitIndex& index;
    void Children(Dwarf_Die* die, int parent, int scope, int depth) {
      Dwarf_Die child;
      if (!index.usable || depth > kMaxTreeDepth || dwarf_child(die, &child) != 0) return;
      do {
        const int tag = dwarf_tag(&child);
        if (tag == DW_TAG_imported_unit) {
          index.usable = false;
          return;
        }
        int next_parent = parent;
        int next_scope = scope;
        if (IsFunction(tag) || IsQualifying(tag)) {
          next_scope = static_cast<int>(index.scopes.size());
          index.scopes.push_back({child, scope});
          if (tag == DW_TAG_subprogram) index.subprograms.emplace(child.addr, next_scope);
        }
        if (IsFunction(tag)) {
          next_parent = static_cast<int>(index.entries.size());
          index.entries.push_back({child, parent, depth});
          Dwarf_Addr base = 0, start = 0, end = 0;
          ptrdiff_t offset = 0;
          while ((offset = dwarf_ranges(&child, offset, &base, &start, &end)) > 0) {
            if (start < end) index.ranges.push_back({start, end, next_parent});
          }
        }
        if (dwarf_haschildren(&child) > 0) Children(&child, next_parent, next_scope, depth + 1);
      } while (index.usable && dwarf_siblingof(&child, &child) == 0);
    }
  };
  Walk{index}.Children(cudie, -1, -1, 1);
  std::sort(index.ranges.begin(), index.ranges.end(),
            [](const UnitIndex::Range& a, const UnitIndex::Range& b) { return a.low < b.low; });
  index.max_high.reserve(index.ranges.size());
  Dwarf_Addr high = 0;
  for (const UnitIndex::Range& r : index.ranges)
    index.max_high.push_back(high = std::max(high, r.high));
  return index;
}

std::vector<Dwarf_Die> DwarfFrames::FunctionScopes(Dwarf_Die* cudie, Dwarf_Addr dwarf_pc) {
  const UnitIndex& index = IndexOf(cudie);
  std::vector<Dwarf_Die> chain;
  if (!index.usable) {
    for (Dwarf_Die& scope : ScopesAt(cudie, dwarf_pc)) {
      if (IsFunction(dwarf_tag(&scope))) chain.push_back(scope);
    }
    return chain;
  }
  // The deepest entry whose ranges hold pc: ranges starting at or before pc,
  // backwards, until none before can reach pc.
  int innermost = -1;
  auto i = std::upper_bound(index.ranges.begin(), index.ranges.end(), dwarf_pc,
                            [](Dwarf_Addr pc, const UnitIndex::Range& r) { return pc < r.low; }) -
           index.ranges.begin();
  while (--i >= 0 && index.max_high[static_cast<size_t>(i)] > dwarf_pc) {
    const UnitIndex::Range& r = index.ranges[static_cast<size_t>(i)];
    if (r.high > dwarf_pc &&
        (innermost < 0 || index.entries[static_cast<size_t>(r.entry)].depth >
                              index.entries[static_cast<size_t>(innermost)].depth)) {
      innermost = r.entry;
    }
  }
  for (int e = innermost; e >= 0; e = index.entries[static_cast<size_t>(e)].parent) {
    chain.push_back(index.entries[static_cast<size_t>(e)].die);
  }
  return chain;
}

std::vector<SourceFrame> DwarfFrames::At(Dwfl_Module* mod, Dwarf_Addr pc) {
  std::vector<SourceFrame> frames;
  SourceFrame location;
  bool reached_function = false;
  Dwarf_Addr bias = 0;
  Dwarf_Die* cudie = dwfl_module_addrdie(mod, pc, &bias);
  // libdwfl counts the gaps between units as part of the unit before them:
  // only a unit that really holds pc has something to say about it.
  if (cudie != nullptr && dwarf_haspc(cudie, pc - bias) > 0) {
    std::vector<Dwarf_Die> scopes = FunctionScopes(cudie, pc - bias);
    Dwarf_Die* function = cudie;
    for (Dwarf_Die& scope : scopes) {
      if (dwarf_tag(&scope) == DW_TAG_subprogram) function = &scope;
    }
    location = LineAt(cudie, function, pc - bias);
    for (Dwarf_Die& scope : scopes) {
      const int tag = dwarf_tag(&scope);
      location.function = FunctionName(&scope, 0);
      frames.push_back(std::move(location));
      if (tag != DW_TAG_inlined_subroutine) {
        reached_function = true;
        break;
      }
      location = CallSite(&scope);
    }
  }
  if (reached_function) {
    if (frames.back().function.empty()) frames.back().function = SymtabName(mod, pc);
  } else {
    // No DWARF for pc, or no function around it in DWARF: the ELF symbol's
    // name, with whatever location is known.
    location.function = SymtabName(mod, pc);
    if (!location.function.empty() || !location.file.empty() || location.line != 0) {
      frames.push_back(std::move(location));
    }
  }
  return frames;
}

std::string DwarfFrames::SymtabName(Dwfl_Module* mod, Dwarf_Addr pc) {
  std::unique_ptr<SymtabIndex>& index = symtabs_[mod];
  if (index == nullptr) index = std::make_unique<SymtabIndex>(mod);
  return index->NameAt(pc);
}

std::string DwarfFrames::FunctionName(Dwarf_Die* die, int depth) {
  const char* linkage = StringAttr(die, DW_AT_linkage_name);
  if (linkage == nullptr) linkage = StringAttr(die, DW_AT_MIPS_linkage_name);
  if (linkage != nullptr) return Demangle(linkage);
  return QualifiedName(die, depth);
}

std::string DwarfFrames::QualifiedName(Dwarf_Die* die, int depth) {
  Dwarf_Die decl = Declaration(die);
  if (const auto it = qualified_.find(decl.addr); it != qualified_.end()) return it->second;
  const char* name = dwarf_diename(&decl);
  std::string qualified = name != nullptr ? name : "";
  if (qualified.empty()) {
    qualified_.emplace(decl.addr, qualified);
    return qualified;
  }
  // Prefixes qualified with one enclosing scope; false once a function has
  // named the rest.
  auto add_scope = [&](Dwarf_Die* scope) {
    const int tag = dwarf_tag(scope);
    const char* scope_name = dwarf_diename(scope);
    if (tag == DW_TAG_namespace) {
      qualified.insert(
          0, std::string(scope_name != nullptr ? scope_name : "(anonymous namespace)") + "::");
    } else if (IsQualifying(tag) && scope_name != nullptr) {
      qualified.insert(0, std::string(scope_name) + "::");
    } else if (IsFunction(tag) && depth < kMaxDepth) {
      // A local class's member: the enclosing function names the rest.
      qualified.insert(0, FunctionName(scope, depth + 1) + "::");
      return false;
    }
    return true;
  };
  // decl's place in its unit's index, if the unit has a usable one.
  const UnitIndex* index = nullptr;
  int node = -1;
  Dwarf_Die cu;
  if (dwarf_diecu(&decl, &cu, nullptr, nullptr) != nullptr) {
    index = &IndexOf(&cu);
    const auto found = index->subprograms.find(decl.addr);
    if (index->usable && found != index->subprograms.end()) node = found->second;
  }
  if (node >= 0) {
    for (int i = index->scopes[static_cast<size_t>(node)].parent; i >= 0;) {
      Dwarf_Die scope = index->scopes[static_cast<size_t>(i)].die;
      i = index->scopes[static_cast<size_t>(i)].parent;
      if (!add_scope(&scope)) break;
    }
  } else {
    Dwarf_Die* scopes = nullptr;
    const int nscopes = dwarf_getscopes_die(&decl, &scopes);
    // scopes[0] is decl itself; the unit is last.
    for (int i = 1; i < nscopes && add_scope(&scopes[i]); ++i) {
    }
    std::free(scopes);
  }
  qualified_.emplace(decl.addr, qualified);
  return qualified;
}

}  // namespace heaprec::symbolize
