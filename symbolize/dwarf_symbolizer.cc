// DwarfSymbolizer: finds each module's file, opens it in its own libdwfl
// session, and caches frames per (module, address). See dwarf_symbolizer.h;
// DwarfFrames reads the frames.
#include "symbolize/dwarf_symbolizer.h"

#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <libelf.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "symbolize/debug_files.h"
#include "symbolize/dwarf_frames.h"
#include "symbolize/symbol_cache.h"

namespace heaprec::symbolize {
namespace {

struct CacheKey {
  uint64_t address;
  uint32_t module;
  friend bool operator==(const CacheKey&, const CacheKey&) = default;
};

struct CacheKeyHash {
  size_t operator()(const CacheKey& k) const {
    return std::hash<uint64_t>()(k.address * 0x9e3779b97f4a7c15ULL ^ k.module);
  }
};

// Whether a .gnu_debuglink target exists where libdwfl's standard search
// looks with our debuginfo_path (":.debug:<dirs>"): beside the file, in its
// .debug folder, and under each directory at the file's own path.
bool DebuglinkTargetExists(const char* file_name, const char* debuglink,
                           const std::vector<std::string>& dirs) {
  if (file_name == nullptr || debuglink == nullptr || debuglink[0] == '\0') return false;
  const std::string file = file_name;
  const size_t slash = file.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : file.substr(0, slash);
  std::vector<std::string> candidates = {dir + "/" + debuglink, dir + "/.debug/" + debuglink};
  for (const std::string& d : dirs) candidates.push_back(d + dir + "/" + debuglink);
  for (const std::string& candidate : candidates) {
    if (candidate != file && access(candidate.c_str(), F_OK) == 0) return true;
  }
  return false;
}

// libdwfl's standard search for a module's separate debug information (by
// build-id under the debug directories, then by .gnu_debuglink), with the
// files by name that FindDebugFileByName knows in between, and without
// libdwfl's last resort unless DEBUGINFOD_URLS names servers: asking
// debuginfod loads libdebuginfod and the ~25 libraries it needs (curl,
// GnuTLS, Kerberos: ~11 ms) for the first module without local debug
// information, even with no server configured. The module's userdata is the
// list of debug directories.
int FindDebuginfoLocally(Dwfl_Module* mod, void** userdata, const char* modname, Dwarf_Addr base,
                         const char* file_name, const char* debuglink_file, GElf_Word debuglink_crc,
                         char** debuginfo_file_name) {
  static const bool servers = [] {
    const char* urls = std::getenv("DEBUGINFOD_URLS");
    return urls != nullptr && urls[0] != '\0';
  }();
  const int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
                                              debuglink_file, debuglink_crc, debuginfo_file_name);
  if (fd >= 0) return fd;
  const auto* dirs = static_cast<const std::vector<std::string>*>(*userdata);
  if (dirs != nullptr) {
    const unsigned char* bits = nullptr;
    GElf_Addr vaddr = 0;
    const int n = dwfl_module_build_id(mod, &bits, &vaddr);
    const std::string found = FindDebugFileByName(
        n > 0 ? std::string(reinterpret_cast<const char*>(bits), n) : std::string(),
        modname != nullptr ? modname : "", file_name != nullptr ? file_name : "",
        debuglink_file != nullptr ? debuglink_file : "", *dirs);
    if (!found.empty()) {
      const int found_fd = open(found.c_str(), O_RDONLY | O_CLOEXEC);
      if (found_fd >= 0) {
        *debuginfo_file_name = strdup(found.c_str());
        return found_fd;
      }
    }
  }
  if (!servers && (dirs == nullptr || !DebuglinkTargetExists(file_name, debuglink_file, *dirs))) {
    return -1;
  }
  return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
                                      debuglink_crc, debuginfo_file_name);
}

}  // namespace

struct DwarfSymbolizer::Impl {
  // One libdwfl session holding one module (its file at its load bias).
  struct Session {
    Dwfl* dwfl = nullptr;
    Dwfl_Module* mod = nullptr;  // null: libdwfl could not use the file
    Dwarf_Addr start = 0;        // the module's address range in the process
    Dwarf_Addr end = 0;
    ~Session() {
      if (dwfl != nullptr) dwfl_end(dwfl);
    }
  };

  struct Entry {
    format::Module module;
    std::string file;            // the ELF file to use; empty when missing
    Session* session = nullptr;  // opened on first use
  };

  explicit Impl(std::vector<std::string> dirs) : debug_dirs(std::move(dirs)) {
    debuginfo_path = ":.debug";
    for (const std::string& dir : debug_dirs) debuginfo_path += ":" + dir;
    debuginfo_path_ptr = debuginfo_path.data();
    callbacks.find_elf = dwfl_build_id_find_elf;
    callbacks.find_debuginfo = FindDebuginfoLocally;
    callbacks.section_address = dwfl_offline_section_address;
    callbacks.debuginfo_path = &debuginfo_path_ptr;
    elf_version(EV_CURRENT);
  }

  Session* Open(Entry& entry) {
    if (entry.session != nullptr || entry.file.empty()) return entry.session;
    auto& session = sessions[{entry.file, entry.module.load_address}];
    if (session == nullptr) {
      session = std::make_unique<Session>();
      session->dwfl = dwfl_begin(&callbacks);
      if (session->dwfl != nullptr) {
        dwfl_report_begin(session->dwfl);
        session->mod = dwfl_report_elf(session->dwfl, entry.module.path.c_str(), entry.file.c_str(),
                                       -1, entry.module.load_address,
                                       /*add_p_vaddr=*/true);
        if (dwfl_report_end(session->dwfl, nullptr, nullptr) != 0) session->mod = nullptr;
      }
      if (session->mod != nullptr) {
        void** userdata = nullptr;
        dwfl_module_info(session->mod, &userdata, &session->start, &session->end, nullptr, nullptr,
                         nullptr, nullptr);
        *userdata = &debug_dirs;  // for FindDebuginfoLocally
      }
    }
    if (session->mod == nullptr) missing.insert(entry.module.id);
    entry.session = session.get();
    return entry.session;
  }

  // The module added last whose ranges contain pc, or 0.
  uint32_t ModuleOf(uint64_t pc) const {
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      for (const format::MappedRange& r : modules.at(*it).module.ranges) {
        if (r.start <= pc && pc < r.end) return *it;
      }
    }
    return 0;
  }

  std::vector<std::string> debug_dirs;
  std::string debuginfo_path;  // for dwfl_standard_find_debuginfo
  char* debuginfo_path_ptr = nullptr;
  Dwfl_Callbacks callbacks = {};
  std::unordered_map<uint32_t, Entry> modules;
  std::vector<uint32_t> order;  // module ids in the order added
  std::map<std::pair<std::string, uint64_t>, std::unique_ptr<Session>> sessions;
  std::set<uint32_t> missing;
  DwarfFrames frames;                 // its name cache is keyed by pointers into the sessions' data
  std::unique_ptr<SymbolCache> disk;  // UseCache; saved when destroyed
  std::unordered_map<CacheKey, format::Symbol, CacheKeyHash> cache;
};

DwarfSymbolizer::DwarfSymbolizer() : DwarfSymbolizer("/usr/lib/debug") {}

DwarfSymbolizer::DwarfSymbolizer(std::string debug_dir)
    : DwarfSymbolizer(std::vector<std::string>{std::move(debug_dir)}) {}

DwarfSymbolizer::DwarfSymbolizer(std::vector<std::string> debug_dirs)
    : impl_(std::make_unique<Impl>(std::move(debug_dirs))) {}

DwarfSymbolizer::~DwarfSymbolizer() = default;
DwarfSymbolizer::DwarfSymbolizer(DwarfSymbolizer&&) noexcept = default;
DwarfSymbolizer& DwarfSymbolizer::operator=(DwarfSymbolizer&&) noexcept = default;

void DwarfSymbolizer::UseCache(const std::string& dir) {
  impl_->disk = dir.empty() ? nullptr : std::make_unique<SymbolCache>(dir);
}

void DwarfSymbolizer::SaveCache() {
  if (impl_->disk != nullptr) impl_->disk->Save();
}

void DwarfSymbolizer::AddModule(const format::Module& module) {
  if (module.id == 0) return;
  Impl& s = *impl_;
  if (s.modules.erase(module.id) != 0) {
    std::erase(s.order, module.id);
    s.missing.erase(module.id);
    std::erase_if(s.cache, [&](const auto& kv) { return kv.first.module == module.id; });
  }
  Impl::Entry entry;
  entry.module = module;
  entry.file = FindModuleFile(module, s.debug_dirs);
  if (entry.file.empty()) s.missing.insert(module.id);
  if (s.disk != nullptr) s.disk->AddModule(module, entry.file, s.debug_dirs);
  s.modules.emplace(module.id, std::move(entry));
  s.order.push_back(module.id);
}

format::Symbol DwarfSymbolizer::Symbolize(uint64_t address, uint32_t module_id) {
  Impl& s = *impl_;
  format::Symbol symbol;
  symbol.address = address;
  if (address == 0) return symbol;
  const uint64_t pc = address - 1;
  if (module_id == 0) module_id = s.ModuleOf(pc);
  const auto entry = s.modules.find(module_id);
  if (entry == s.modules.end()) return symbol;
  symbol.module = module_id;

  const auto [cached, inserted] = s.cache.try_emplace({address, module_id});
  if (!inserted) return cached->second;
  if (s.disk != nullptr && s.disk->Lookup(module_id, address, &symbol.frames)) {
    cached->second = symbol;
    return symbol;
  }
  const Impl::Session* session = s.Open(entry->second);
  if (session != nullptr && session->mod != nullptr && session->start <= pc && pc < session->end) {
    symbol.frames = s.frames.At(session->mod, pc);
  }
  if (s.disk != nullptr && !entry->second.file.empty() && session != nullptr &&
      session->mod != nullptr) {
    s.disk->Store(module_id, address, symbol.frames);
  }
  cached->second = symbol;
  return symbol;
}

std::vector<uint32_t> DwarfSymbolizer::MissingModules() const {
  return std::vector<uint32_t>(impl_->missing.begin(), impl_->missing.end());
}

}  // namespace heaprec::symbolize
