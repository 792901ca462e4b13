// ModuleScan: dl_iterate_phdr over the loaded objects, diffed against the
// modules already logged.
#include "recorder/preload/module_scan.h"

#include <elf.h>
#include <link.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstring>

namespace heaprec::recorder::preload {
namespace {

constexpr uint32_t kMaxKnown = 2048;

struct Known {
  uint64_t load_address;
  uint64_t first_range;  // distinguishes objects sharing a load bias of 0
  uint32_t id;
  bool seen;
};

Known g_known[kMaxKnown];
uint32_t g_known_count = 0;
uint32_t g_next_id = 1;
std::atomic<uint32_t> g_lock{0};
// The loader's load and unload counts at the last scan.
std::atomic<uint64_t> g_adds{0}, g_subs{0};

void LoaderCounts(uint64_t* adds, uint64_t* subs) {
  struct Counts {
    uint64_t adds, subs;
  } c{0, 0};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t size, void* data) {
        auto* c = static_cast<Counts*>(data);
        if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
          c->adds = info->dlpi_adds;
          c->subs = info->dlpi_subs;
        }
        return 1;  // the counters are the same in every entry
      },
      &c);
  *adds = c.adds;
  *subs = c.subs;
}

struct ScanContext {
  const RegionView* region;
  uint64_t seq;
};

void CopyPath(char* out, const char* name, uint32_t* truncated) {
  char exe[kModulePathBytes];
  if (name == nullptr || name[0] == '\0') {
    // The main executable has an empty name.
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    exe[n > 0 ? n : 0] = '\0';
    name = exe;
  }
  const size_t len = strlen(name);
  *truncated = len >= kModulePathBytes;
  const size_t n = *truncated ? kModulePathBytes - 1 : len;
  memcpy(out, name, n);
  out[n] = '\0';
}

void ReadBuildId(const dl_phdr_info* info, ModuleRecord* m) {
  m->build_id_len = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const auto* p = reinterpret_cast<const uint8_t*>(info->dlpi_addr + ph.p_vaddr);
    const uint8_t* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(p);
      const uint8_t* name = p + sizeof(ElfW(Nhdr));
      const uint8_t* desc = name + ((note->n_namesz + 3) & ~3u);
      const uint8_t* next = desc + ((note->n_descsz + 3) & ~3u);
      if (next > end) break;
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
          note->n_descsz <= sizeof(m->build_id)) {
        memcpy(m->build_id, desc, note->n_descsz);
        m->build_id_len = note->n_descsz;
        return;
      }
      p = next;
    }
  }
}

uint64_t FirstRange(const dl_phdr_info* info) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type == PT_LOAD) return info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
  }
  return info->dlpi_addr;
}

ModuleRecord* NewRecord(const RegionView& region) {
  const uint32_t i = region.header()->module_count.fetch_add(1, std::memory_order_relaxed);
  if (i >= kModuleRecords) {
    region.header()->counters.module_log_full.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  return &region.modules()[i];
}

void LogLoad(const RegionView& region, const dl_phdr_info* info, uint32_t id, uint64_t seq) {
  ModuleRecord* m = NewRecord(region);
  if (m == nullptr) return;
  m->kind = 1;
  m->id = id;
  m->seq = seq;
  m->load_address = info->dlpi_addr;
  CopyPath(m->path, info->dlpi_name, &m->path_truncated);
  ReadBuildId(info, m);
  m->range_count = 0;
  for (int i = 0; i < info->dlpi_phnum && m->range_count < kMaxModuleRanges; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    auto& r = m->ranges[m->range_count++];
    r.start = info->dlpi_addr + ph.p_vaddr;
    r.end = r.start + ph.p_memsz;
    r.file_offset = ph.p_offset;
  }
  m->ready.store(1, std::memory_order_release);
}

int OnObject(dl_phdr_info* info, size_t, void* data) {
  const auto* ctx = static_cast<const ScanContext*>(data);
  const uint64_t first = FirstRange(info);
  for (uint32_t i = 0; i < g_known_count; ++i) {
    if (g_known[i].load_address == info->dlpi_addr && g_known[i].first_range == first &&
        g_known[i].id != 0) {
      g_known[i].seen = true;
      return 0;
    }
  }
  if (g_known_count == kMaxKnown) return 0;
  Known& k = g_known[g_known_count++];
  k = {info->dlpi_addr, first, g_next_id++, true};
  LogLoad(*ctx->region, info, k.id, ctx->seq);
  return 0;
}

}  // namespace

void LockModuleScan() {
  uint32_t expected = 0;
  while (!g_lock.compare_exchange_weak(expected, 1, std::memory_order_acquire)) {
    expected = 0;
    sched_yield();
  }
}

void UnlockModuleScan() { g_lock.store(0, std::memory_order_release); }

void ForgetModules() {
  g_known_count = 0;
  g_next_id = 1;
  g_adds.store(0, std::memory_order_relaxed);
  g_subs.store(0, std::memory_order_relaxed);
}

void ScanModulesIfChanged(const RegionView& region) {
  uint64_t adds, subs;
  LoaderCounts(&adds, &subs);
  if (adds == g_adds.load(std::memory_order_relaxed) &&
      subs == g_subs.load(std::memory_order_relaxed)) {
    return;
  }
  ScanModules(region);
}

void ScanModules(const RegionView& region) {
  LockModuleScan();
  uint64_t adds, subs;
  LoaderCounts(&adds, &subs);
  g_adds.store(adds, std::memory_order_relaxed);
  g_subs.store(subs, std::memory_order_relaxed);
  ScanContext ctx{&region, CurrentSeq(*region.header())};
  for (uint32_t i = 0; i < g_known_count; ++i) g_known[i].seen = false;
  dl_iterate_phdr(OnObject, &ctx);
  // Whatever was not seen was unloaded.
  uint32_t kept = 0;
  for (uint32_t i = 0; i < g_known_count; ++i) {
    if (g_known[i].seen) {
      g_known[kept++] = g_known[i];
      continue;
    }
    ModuleRecord* m = NewRecord(region);
    if (m == nullptr) continue;
    m->kind = 2;
    m->id = g_known[i].id;
    m->seq = ctx.seq;
    m->ready.store(1, std::memory_order_release);
  }
  g_known_count = kept;
  UnlockModuleScan();
}

void OwnTextRange(uintptr_t* start, uintptr_t* end) {
  // The executable segment holding this very function.
  struct Finder {
    uintptr_t pc, start, end;
  } f{reinterpret_cast<uintptr_t>(&OwnTextRange), 0, 0};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* f = static_cast<Finder*>(data);
        for (int k = 0; k < info->dlpi_phnum; ++k) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[k];
          const uintptr_t s = info->dlpi_addr + ph.p_vaddr;
          if (ph.p_type == PT_LOAD && f->pc >= s && f->pc < s + ph.p_memsz) {
            f->start = s;
            f->end = s + ph.p_memsz;
          }
        }
        return 0;
      },
      &f);
  *start = f.start;
  *end = f.end;
}

}  // namespace heaprec::recorder::preload
