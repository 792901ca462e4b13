// SymtabIndex against libdwfl's own answer (dwfl_module_addrinfo) for
// addresses in and around every code symbol of real libraries: the index must
// name the same function for each, or the launcher's symbols would change.
#include "symbolize/symtab_index.h"

#include <gelf.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "symbolize/demangle.h"

namespace heaprec::symbolize {
namespace {

bool InCode(Dwfl_Module* mod, Dwarf_Addr pc) {
  Dwarf_Addr address = pc;
  Dwarf_Addr bias = 0;
  Elf_Scn* scn = dwfl_module_address_section(mod, &address, &bias);
  GElf_Shdr shdr;
  return scn != nullptr && gelf_getshdr(scn, &shdr) != nullptr &&
         (shdr.sh_flags & SHF_EXECINSTR) != 0;
}

// Compares the two answers at addresses in and just past each code symbol
// of the library at path, where they lie in executable sections; returns how
// many addresses were compared.
size_t CompareOn(const char* path) {
  static char* debuginfo_path = nullptr;
  static const Dwfl_Callbacks callbacks = {
      .find_elf = dwfl_build_id_find_elf,
      .find_debuginfo = dwfl_standard_find_debuginfo,
      .section_address = dwfl_offline_section_address,
      .debuginfo_path = &debuginfo_path,
  };
  Dwfl* dwfl = dwfl_begin(&callbacks);
  if (dwfl == nullptr) {
    ADD_FAILURE() << "dwfl_begin failed";
    return 0;
  }
  dwfl_report_begin(dwfl);
  Dwfl_Module* mod = dwfl_report_elf(dwfl, path, path, -1, 0x7f0000000000, /*add_p_vaddr=*/true);
  dwfl_report_end(dwfl, nullptr, nullptr);
  if (mod == nullptr) {
    ADD_FAILURE() << path << ": " << dwfl_errmsg(-1);
    dwfl_end(dwfl);
    return 0;
  }
  std::vector<Dwarf_Addr> probes;
  const int n = dwfl_module_getsymtab(mod);
  for (int i = 1; i < n; ++i) {
    GElf_Sym sym;
    GElf_Addr address = 0;
    if (dwfl_module_getsym_info(mod, i, &sym, &address, nullptr, nullptr, nullptr) == nullptr) {
      continue;
    }
    const int type = GELF_ST_TYPE(sym.st_info);
    if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE) continue;
    if (address == 0) continue;
    probes.push_back(address);
    probes.push_back(address + 1);
    if (sym.st_size > 2) probes.push_back(address + sym.st_size / 2);
    if (sym.st_size > 0) {
      probes.push_back(address + sym.st_size - 1);
      probes.push_back(address + sym.st_size);  // just past: the next symbol, or a gap
    }
  }
  SymtabIndex index(mod);
  size_t compared = 0, differ = 0;
  for (const Dwarf_Addr pc : probes) {
    if (!InCode(mod, pc)) continue;  // return addresses are never in data
    GElf_Off offset = 0;
    GElf_Sym sym;
    const std::string want =
        Demangle(dwfl_module_addrinfo(mod, pc, &offset, &sym, nullptr, nullptr, nullptr));
    const std::string got = index.NameAt(pc);
    ++compared;
    if (got != want && ++differ <= 10) {
      ADD_FAILURE() << path << " at +0x" << std::hex << (pc - 0x7f0000000000) << ": libdwfl '"
                    << want << "', index '" << got << "'";
    }
  }
  EXPECT_EQ(differ, 0u) << path;
  dwfl_end(dwfl);
  return compared;
}

TEST(SymtabIndexTest, NamesWhatLibdwflNamesOnEveryCodeSymbolOfLibc) {
  EXPECT_GT(CompareOn("/lib/x86_64-linux-gnu/libc.so.6"), 5000u);
}

TEST(SymtabIndexTest, NamesWhatLibdwflNamesOnEveryCodeSymbolOfLibstdcxx) {
  EXPECT_GT(CompareOn("/lib/x86_64-linux-gnu/libstdc++.so.6"), 10000u);
}

TEST(SymtabIndexTest, NamesWhatLibdwflNamesOnEveryCodeSymbolOfLibdw) {
  // Stripped: .dynsym only, no separate debug file.
  EXPECT_GT(CompareOn("/lib/x86_64-linux-gnu/libdw.so.1"), 1000u);
}

}  // namespace
}  // namespace heaprec::symbolize
