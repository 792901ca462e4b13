// DwarfFrames: scopes, line table and call sites of one address (see
// dwarf_frames.h).
#include "symbolize/dwarf_frames.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

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

}  // namespace

std::vector<SourceFrame> DwarfFrames::At(Dwfl_Module* mod, Dwarf_Addr pc) {
  std::vector<SourceFrame> frames;
  SourceFrame location;
  bool reached_function = false;
  Dwarf_Addr bias = 0;
  Dwarf_Die* cudie = dwfl_module_addrdie(mod, pc, &bias);
  // libdwfl counts the gaps between units as part of the unit before them:
  // only a unit that really holds pc has something to say about it.
  if (cudie != nullptr && dwarf_haspc(cudie, pc - bias) > 0) {
    std::vector<Dwarf_Die> scopes = ScopesAt(cudie, pc - bias);
    Dwarf_Die* function = cudie;
    for (Dwarf_Die& scope : scopes) {
      if (dwarf_tag(&scope) == DW_TAG_subprogram) function = &scope;
    }
    location = LineAt(cudie, function, pc - bias);
    for (Dwarf_Die& scope : scopes) {
      const int tag = dwarf_tag(&scope);
      if (!IsFunction(tag)) continue;
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
  Dwarf_Die* scopes = nullptr;
  const int nscopes = qualified.empty() ? 0 : dwarf_getscopes_die(&decl, &scopes);
  // scopes[0] is decl itself; the unit is last.
  for (int i = 1; i < nscopes; ++i) {
    Dwarf_Die* scope = &scopes[i];
    const int tag = dwarf_tag(scope);
    const char* scope_name = dwarf_diename(scope);
    if (tag == DW_TAG_namespace) {
      qualified.insert(
          0, std::string(scope_name != nullptr ? scope_name : "(anonymous namespace)") + "::");
    } else if ((tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
                tag == DW_TAG_union_type) &&
               scope_name != nullptr) {
      qualified.insert(0, std::string(scope_name) + "::");
    } else if (IsFunction(tag) && depth < kMaxDepth) {
      // A local class's member: the enclosing function names the rest.
      qualified.insert(0, FunctionName(scope, depth + 1) + "::");
      break;
    }
  }
  std::free(scopes);
  qualified_.emplace(decl.addr, qualified);
  return qualified;
}

}  // namespace heaprec::symbolize
