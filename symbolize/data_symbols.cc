// Variables and TLS of an ELF module (data_symbols.h).
#include "symbolize/data_symbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>

#include "symbolize/demangle.h"

namespace heaprec::symbolize {
namespace {

std::string DebugFileByBuildId(const std::string& build_id) {
  if (build_id.size() < 2) return "";
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : build_id) {
    hex += kHex[c >> 4];
    hex += kHex[c & 15];
  }
  return "/usr/lib/debug/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug";
}

// The symbol table of the given type in elf into *out; false if it has none.
bool ReadSymbols(Elf* elf, Elf64_Word type, uint64_t load_bias, std::vector<DataSymbol>* out) {
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != type) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || shdr.sh_entsize == 0) continue;
    const size_t count = shdr.sh_size / shdr.sh_entsize;
    for (size_t i = 0; i < count; ++i) {
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) continue;
      if (GELF_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_size == 0 ||
          sym.st_shndx == SHN_UNDEF) {
        continue;
      }
      const char* name = elf_strptr(elf, shdr.sh_link, sym.st_name);
      if (name == nullptr || *name == '\0') continue;
      out->push_back({sym.st_value + load_bias, sym.st_size, Demangle(name)});
    }
    return true;
  }
  return false;
}

void ReadTls(Elf* elf, ModuleData* m) {
  size_t phnum = 0;
  if (elf_getphdrnum(elf, &phnum) != 0) return;
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, static_cast<int>(i), &ph) != nullptr && ph.p_type == PT_TLS) {
      m->tls_size = ph.p_memsz;
      m->tls_align = ph.p_align;
    }
  }
}

// Opens path and calls f(Elf*); false if it is not a readable ELF file.
template <typename F>
bool WithElf(const std::string& path, F&& f) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  const bool ok = elf != nullptr && elf_kind(elf) == ELF_K_ELF;
  if (ok) f(elf);
  if (elf != nullptr) elf_end(elf);
  close(fd);
  return ok;
}

}  // namespace

ModuleData ReadModuleData(const std::string& path, uint64_t load_bias,
                          const std::string& build_id) {
  elf_version(EV_CURRENT);
  ModuleData m;
  bool symtab = false;
  std::vector<DataSymbol> dynamic;
  const bool readable = WithElf(path, [&](Elf* elf) {
    ReadTls(elf, &m);
    symtab = ReadSymbols(elf, SHT_SYMTAB, load_bias, &m.symbols);
    if (!symtab) ReadSymbols(elf, SHT_DYNSYM, load_bias, &dynamic);
  });
  if (!readable) return m;
  if (!symtab) {
    symtab = WithElf(DebugFileByBuildId(build_id),
                     [&](Elf* elf) { ReadSymbols(elf, SHT_SYMTAB, load_bias, &m.symbols); });
  }
  if (!symtab) m.symbols = std::move(dynamic);
  m.from_symtab = symtab;
  // Sorted, one symbol per address (aliases: the first name), not overlapping.
  std::stable_sort(m.symbols.begin(), m.symbols.end(),
                   [](const DataSymbol& a, const DataSymbol& b) { return a.start < b.start; });
  std::vector<DataSymbol> kept;
  for (DataSymbol& s : m.symbols) {
    if (!kept.empty() && s.start < kept.back().start + kept.back().size) continue;
    kept.push_back(std::move(s));
  }
  m.symbols = std::move(kept);
  return m;
}

ModuleData Rebased(const ModuleData& data, uint64_t load_bias) {
  ModuleData m = data;
  for (DataSymbol& s : m.symbols) s.start += load_bias;
  return m;
}

}  // namespace heaprec::symbolize
