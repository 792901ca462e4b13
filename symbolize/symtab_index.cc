// SymtabIndex: one sort of the module's symbols, then binary searches
// (symtab_index.h).
#include "symbolize/symtab_index.h"

#include <gelf.h>

#include <algorithm>

#include "symbolize/demangle.h"

namespace heaprec::symbolize {
namespace {

int BindingRank(const GElf_Sym& sym) {
  switch (GELF_ST_BIND(sym.st_info)) {
    case STB_GLOBAL:
      return 3;
    case STB_WEAK:
      return 2;
    case STB_LOCAL:
      return 1;
    default:
      return 0;
  }
}

bool IsCode(const GElf_Sym& sym) {
  const int type = GELF_ST_TYPE(sym.st_info);
  return type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_NOTYPE;
}

}  // namespace

SymtabIndex::SymtabIndex(Dwfl_Module* mod) : mod_(mod) {
  const int n = dwfl_module_getsymtab(mod);
  for (int i = 1; i < n; ++i) {
    GElf_Sym sym;
    GElf_Addr address = 0;
    GElf_Word shndx = 0;
    const char* name = dwfl_module_getsym_info(mod, i, &sym, &address, &shndx, nullptr, nullptr);
    if (name == nullptr || name[0] == '\0' || shndx == SHN_UNDEF || !IsCode(sym)) continue;
    Symbol s;
    s.start = address;
    s.end = address + sym.st_size;
    s.cover = 0;
    s.order = static_cast<uint32_t>(i);
    s.section = shndx;
    s.binding = BindingRank(sym);
    s.raw_name = name;
    symbols_.push_back(std::move(s));
  }
  std::sort(symbols_.begin(), symbols_.end(), [](const Symbol& a, const Symbol& b) {
    return a.start != b.start ? a.start < b.start : a.order < b.order;
  });
  Dwarf_Addr cover = 0;
  for (Symbol& s : symbols_) {
    if (s.end > cover) cover = s.end;
    s.cover = cover;
  }
}

const std::string& SymtabIndex::NameAt(Dwarf_Addr pc) {
  // The symbols starting at or below pc are [0, last).
  const auto last = std::upper_bound(symbols_.begin(), symbols_.end(), pc,
                                     [](Dwarf_Addr v, const Symbol& s) { return v < s.start; });
  if (last == symbols_.begin()) return none_;
  const Dwarf_Addr cover = std::prev(last)->cover;
  Symbol* best = nullptr;      // sized, holding pc
  Symbol* sizeless = nullptr;  // the highest label
  // Walk down until no symbol at or below can hold pc (cover <= pc); starts
  // only fall, so a sized candidate replaces the best one only with a better
  // binding, or at the same start an earlier place in the table.
  for (auto it = last; it != symbols_.begin();) {
    --it;
    if (it->start == it->end) {
      if (sizeless == nullptr) sizeless = &*it;
    } else if (pc < it->end && (best == nullptr || it->binding > best->binding ||
                                (it->binding == best->binding && it->start == best->start))) {
      best = &*it;
    }
    if (it->cover <= pc) break;
  }
  if (best == nullptr && sizeless != nullptr && sizeless->start >= cover) {
    Dwarf_Addr address = pc;
    Dwarf_Addr bias = 0;
    Elf_Scn* scn = dwfl_module_address_section(mod_, &address, &bias);
    if (scn == nullptr || elf_ndxscn(scn) == sizeless->section) best = sizeless;
  }
  if (best == nullptr) return none_;
  if (!best->demangled) {
    best->name = Demangle(best->raw_name);
    best->demangled = true;
  }
  return best->name;
}

}  // namespace heaprec::symbolize
