// GotPatch (got_patch.h): relocation walks over each module's dynamic
// section, an mmap'd table of the entries written.
#include "recorder/preload/got_patch.h"

#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>

namespace heaprec::recorder::preload {
namespace {

struct Entry {
  uintptr_t* where;
  uintptr_t original;
  uintptr_t hook;
  const void* module;  // the module's dlpi_phdr: its identity while loaded
  uintptr_t ro_page;   // the RELRO page holding where, 0 if writable
};

constexpr size_t kMaxEntries = 32768;  // 1 MiB of table

struct Table {
  const GotHook* hooks;
  size_t hook_count;
  uintptr_t own;
  unsigned long long adds;  // dlpi_adds when last patched
  size_t count;
  Entry entries[kMaxEntries];
};

Table* g_table;

bool SameName(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

// The file name's start (after the last '/').
const char* BaseName(const char* path) {
  const char* base = path;
  for (const char* p = path; *p != '\0'; ++p) {
    if (*p == '/') base = p + 1;
  }
  return base;
}

bool StartsWith(const char* s, const char* prefix) {
  while (*prefix != '\0') {
    if (*s++ != *prefix++) return false;
  }
  return true;
}

bool Contains(const dl_phdr_info* info, uintptr_t address) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (address >= start && address < start + ph.p_memsz) return true;
  }
  return false;
}

bool Skipped(const dl_phdr_info* info) {
  const char* name = info->dlpi_name != nullptr ? info->dlpi_name : "";
  const char* base = BaseName(name);
  if (StartsWith(base, "linux-vdso") || StartsWith(base, "linux-gate")) return true;
  if (StartsWith(base, "ld-linux") || StartsWith(base, "ld64.so") || StartsWith(base, "ld.so")) {
    return true;
  }
  return Contains(info, g_table->own);
}

void Store(uintptr_t* where, uintptr_t value, uintptr_t ro_page) {
  const long page = sysconf(_SC_PAGESIZE);
  if (ro_page != 0 && mprotect(reinterpret_cast<void*>(ro_page), static_cast<size_t>(page),
                               PROT_READ | PROT_WRITE) != 0) {
    return;
  }
  __atomic_store_n(where, value, __ATOMIC_RELEASE);
  if (ro_page != 0)
    mprotect(reinterpret_cast<void*>(ro_page), static_cast<size_t>(page), PROT_READ);
}

// Drops an older entry for the same place (its module was unloaded and
// another loaded there): its original value belongs to the old module.
void ForgetEntryAt(uintptr_t* where) {
  for (size_t i = 0; i < g_table->count; ++i) {
    if (g_table->entries[i].where == where) {
      g_table->entries[i] = g_table->entries[--g_table->count];
      return;
    }
  }
}

struct Walk {
  int written = 0;
  bool forget_old = false;  // later passes: a place may have been patched before
};

void PatchRelocations(const dl_phdr_info* info, const ElfW(Rela) * rela, size_t bytes,
                      const ElfW(Sym) * symtab, const char* strtab, size_t strsz,
                      uintptr_t relro_start, uintptr_t relro_end, Walk* walk) {
  const uintptr_t base = info->dlpi_addr;
  const uintptr_t page_mask = ~static_cast<uintptr_t>(sysconf(_SC_PAGESIZE) - 1);
  for (size_t i = 0; i < bytes / sizeof(ElfW(Rela)); ++i) {
    const ElfW(Rela)& r = rela[i];
    const auto type = ELF64_R_TYPE(r.r_info);
    if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
    const auto sym = ELF64_R_SYM(r.r_info);
    if (sym == 0) continue;
    const size_t name_offset = symtab[sym].st_name;
    if (name_offset == 0 || name_offset >= strsz) continue;
    const char* name = strtab + name_offset;
    const GotHook* hook = nullptr;
    for (size_t h = 0; h < g_table->hook_count; ++h) {
      if (g_table->hooks[h].name[0] == name[0] && SameName(g_table->hooks[h].name, name)) {
        hook = &g_table->hooks[h];
        break;
      }
    }
    if (hook == nullptr) continue;
    auto* where = reinterpret_cast<uintptr_t*>(base + r.r_offset);
    const uintptr_t current = __atomic_load_n(where, __ATOMIC_ACQUIRE);
    if (current == hook->hook) continue;  // patched already
    if (walk->forget_old) ForgetEntryAt(where);
    if (g_table->count == kMaxEntries) return;
    const uintptr_t at = reinterpret_cast<uintptr_t>(where);
    // glibc protects RELRO from its start to its end rounded down to a page;
    // the page holding the end stays writable.
    const uintptr_t ro_page =
        at >= relro_start && at < (relro_end & page_mask) ? (at & page_mask) : 0;
    g_table->entries[g_table->count++] = {where, current, hook->hook, info->dlpi_phdr, ro_page};
    Store(where, hook->hook, ro_page);
    ++walk->written;
  }
}

int PatchModule(dl_phdr_info* info, size_t, void* data) {
  auto* walk = static_cast<Walk*>(data);
  if (Skipped(info)) return 0;
  const uintptr_t base = info->dlpi_addr;
  const ElfW(Dyn)* dyn = nullptr;
  uintptr_t relro_start = 0, relro_end = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_DYNAMIC) dyn = reinterpret_cast<const ElfW(Dyn)*>(base + ph.p_vaddr);
    if (ph.p_type == PT_GNU_RELRO) {
      relro_start = base + ph.p_vaddr;
      relro_end = relro_start + ph.p_memsz;
    }
  }
  if (dyn == nullptr) return 0;
  // The loader rewrites these to absolute addresses on x86-64; a value below
  // the load address is still relative.
  const auto absolute = [base](uintptr_t p) { return p < base ? p + base : p; };
  uintptr_t symtab = 0, strtab = 0, jmprel = 0, rela = 0;
  size_t strsz = 0, pltrelsz = 0, relasz = 0;
  bool plt_is_rela = true;
  for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_SYMTAB:
        symtab = absolute(d->d_un.d_ptr);
        break;
      case DT_STRTAB:
        strtab = absolute(d->d_un.d_ptr);
        break;
      case DT_STRSZ:
        strsz = d->d_un.d_val;
        break;
      case DT_JMPREL:
        jmprel = absolute(d->d_un.d_ptr);
        break;
      case DT_PLTRELSZ:
        pltrelsz = d->d_un.d_val;
        break;
      case DT_PLTREL:
        plt_is_rela = d->d_un.d_val == DT_RELA;
        break;
      case DT_RELA:
        rela = absolute(d->d_un.d_ptr);
        break;
      case DT_RELASZ:
        relasz = d->d_un.d_val;
        break;
      default:
        break;
    }
  }
  if (symtab == 0 || strtab == 0) return 0;
  const auto* syms = reinterpret_cast<const ElfW(Sym)*>(symtab);
  const auto* strs = reinterpret_cast<const char*>(strtab);
  if (jmprel != 0 && plt_is_rela) {
    PatchRelocations(info, reinterpret_cast<const ElfW(Rela)*>(jmprel), pltrelsz, syms, strs, strsz,
                     relro_start, relro_end, walk);
  }
  if (rela != 0) {
    PatchRelocations(info, reinterpret_cast<const ElfW(Rela)*>(rela), relasz, syms, strs, strsz,
                     relro_start, relro_end, walk);
  }
  return 0;
}

int ReadAdds(dl_phdr_info* info, size_t size, void* data) {
  auto* adds = static_cast<unsigned long long*>(data);
  if (size >= offsetof(dl_phdr_info, dlpi_adds) + sizeof(info->dlpi_adds)) {
    *adds = info->dlpi_adds;
  }
  return 1;  // the first object tells
}

unsigned long long LoaderAdds() {
  unsigned long long adds = 0;
  dl_iterate_phdr(ReadAdds, &adds);
  return adds;
}

struct Loaded {
  const void* module;
  bool found = false;
};

int FindModule(dl_phdr_info* info, size_t, void* data) {
  auto* l = static_cast<Loaded*>(data);
  if (info->dlpi_phdr == l->module) {
    l->found = true;
    return 1;
  }
  return 0;
}

}  // namespace

int PatchAllModules(const GotHook* hooks, size_t count, uintptr_t own) {
  if (g_table == nullptr) {
    void* m =
        mmap(nullptr, sizeof(Table), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return -1;
    g_table = static_cast<Table*>(m);
  }
  g_table->hooks = hooks;
  g_table->hook_count = count;
  g_table->own = own;
  g_table->adds = LoaderAdds();
  Walk walk;
  walk.forget_old = g_table->count != 0;
  dl_iterate_phdr(PatchModule, &walk);
  return walk.written;
}

int PatchNewModules() {
  if (g_table == nullptr || g_table->hooks == nullptr) return 0;
  const unsigned long long adds = LoaderAdds();
  if (adds == g_table->adds) return 0;
  g_table->adds = adds;
  Walk walk;
  walk.forget_old = true;
  dl_iterate_phdr(PatchModule, &walk);
  return walk.written;
}

int RestoreAllModules() {
  if (g_table == nullptr) return 0;
  int restored = 0;
  const void* checked = nullptr;
  bool loaded = false;
  for (size_t i = 0; i < g_table->count; ++i) {
    const Entry& e = g_table->entries[i];
    if (e.module != checked) {  // entries come grouped by module
      Loaded l{e.module};
      dl_iterate_phdr(FindModule, &l);
      checked = e.module;
      loaded = l.found;
    }
    if (!loaded || __atomic_load_n(e.where, __ATOMIC_ACQUIRE) != e.hook) continue;
    Store(e.where, e.original, e.ro_page);
    ++restored;
  }
  g_table->count = 0;
  g_table->hooks = nullptr;
  return restored;
}

}  // namespace heaprec::recorder::preload
