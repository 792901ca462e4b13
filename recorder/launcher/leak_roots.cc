// The roots of a leak scan (leak_roots.h).
#include "recorder/launcher/leak_roots.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>

namespace heaprec::recorder::launcher {
namespace {

constexpr uint64_t kRedZone = 128;  // below the stack pointer, memcheck's VG_STACK_REDZONE_SZB
// glibc's struct pthread, at a thread's fs base (x86-64, glibc 2.36: 2304
// bytes), and the static TLS it reserves beyond the modules' own blocks.
constexpr uint64_t kTcbBytes = 2304;
constexpr uint64_t kStaticTlsSurplus = 1664;

std::string_view Basename(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool HoldsBlock(std::span<const leakscan::LiveBlock> blocks, uint64_t start, uint64_t end) {
  const auto it =
      std::lower_bound(blocks.begin(), blocks.end(), start,
                       [](const leakscan::LiveBlock& b, uint64_t a) { return b.address < a; });
  return it != blocks.end() && it->address < end;
}

// The module one of whose segments overlaps [start, end): a module's
// writable data spans its file-backed page and the anonymous pages of its
// .bss after it, both page-rounded beyond the segment.
const format::Module* ModuleCovering(std::span<const format::Module> modules, uint64_t start,
                                     uint64_t end) {
  for (const format::Module& m : modules) {
    for (const format::MappedRange& r : m.ranges) {
      if (r.start < end && start < r.end) return &m;
    }
  }
  return nullptr;
}

std::string ThreadName(const ScanThread& t) {
  std::string s = "thread " + std::to_string(t.thread != 0 ? t.thread : t.tid);
  if (!t.name.empty()) s += " (" + t.name + ")";
  return s;
}

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
  return buf;
}

class Builder {
 public:
  explicit Builder(const RootsInput& in) : in_(in) {
    for (const format::Module& m : in.modules) {
      const symbolize::ModuleData& d = in.module_data(m);
      if (d.tls_size != 0) {
        const uint64_t align = d.tls_align > 1 ? d.tls_align : 1;
        static_tls_ += (d.tls_size + align - 1) / align * align;
      }
    }
    static_tls_ = (static_tls_ + 63) / 64 * 64 + kStaticTlsSurplus;
  }

  Roots Build() {
    for (const Mapping& m : in_.mappings) {
      out_.segments.push_back({m.start, m.end, m.readable,
                               m.file_backed() && !m.path.empty() && m.path[0] != '[',
                               m.executable});
      if (Scanned(m)) AddMapping(m);
    }
    for (const ScanThread& t : in_.threads) {
      if (t.tid == in_.exiting_tid) continue;
      const leakscan::RootId id = NewRoot(format::LeakRootKind::kRegisters,
                                          "registers of " + ThreadName(t), 0, t.thread, 0, 0);
      const user_regs_struct& r = t.regs;
      // memcheck's order: RAX RCX RDX RBX RSI RDI RSP RBP R8..R15.
      for (const unsigned long long v : {r.rax, r.rcx, r.rdx, r.rbx, r.rsi, r.rdi, r.rsp, r.rbp,
                                         r.r8, r.r9, r.r10, r.r11, r.r12, r.r13, r.r14, r.r15}) {
        out_.values.push_back({static_cast<uint64_t>(v), id});
      }
    }
    return std::move(out_);
  }

 private:
  struct Piece {
    uint64_t start, end;
    leakscan::RootId root;
  };

  bool Scanned(const Mapping& m) const {
    if (!m.readable || !m.writable) return false;
    if (m.path.rfind("/dev/", 0) == 0 && m.path != "/dev/zero") return false;
    for (const std::string& prefix : in_.excluded_prefixes) {
      if (!prefix.empty() && m.path.rfind(prefix, 0) == 0) return false;
    }
    const format::Module* module = ModuleCovering(in_.modules, m.start, m.end);
    if (module != nullptr) {
      for (const std::string& prefix : in_.excluded_prefixes) {
        if (!prefix.empty() && module->path.rfind(prefix, 0) == 0) return false;
      }
    }
    return !HoldsBlock(in_.blocks, m.start, m.end);
  }

  leakscan::RootId NewRoot(format::LeakRootKind kind, const std::string& name, uint32_t module,
                           uint32_t thread, uint64_t address, uint64_t size) {
    const auto id = static_cast<leakscan::RootId>(out_.roots.size() + 1);
    out_.roots.push_back({id, kind, name, module, thread, address, size});
    out_.global_names.emplace_back();
    return id;
  }

  // The root of a module's global, one per name and module file name (as
  // Named() would give for "symbol [file]"), its name left for Root().
  using GlobalIds = std::unordered_map<std::string_view, leakscan::RootId>;
  // ids: globals_[base].
  leakscan::RootId Global(GlobalIds& ids, std::string_view base, const symbolize::DataSymbol& s,
                          uint32_t module) {
    auto [it, fresh] = ids.try_emplace(std::string_view(s.name), 0);
    if (fresh) {
      it->second = NewRoot(format::LeakRootKind::kGlobal, "", module, 0, s.start, s.size);
      out_.global_names.back() = {s.name, base};
    }
    return it->second;
  }

  leakscan::RootId Named(format::LeakRootKind kind, const std::string& name, uint32_t module,
                         uint32_t thread, uint64_t address, uint64_t size) {
    const auto it = by_name_.find(name);
    if (it != by_name_.end()) return it->second;
    return by_name_[name] = NewRoot(kind, name, module, thread, address, size);
  }

  void AddMapping(const Mapping& m) {
    uint64_t start = m.start;
    const ScanThread* stack_of = nullptr;
    std::vector<Piece> special;
    for (const ScanThread& t : in_.threads) {
      const uint64_t sp = t.regs.rsp;
      if (sp >= m.start && sp < m.end && (stack_of == nullptr || sp < stack_of->regs.rsp)) {
        stack_of = &t;
      }
      const uint64_t fs = t.regs.fs_base;
      if (fs > m.start && fs <= m.end) {
        const uint64_t tls_start = fs > static_tls_ + m.start ? fs - static_tls_ : m.start;
        special.push_back({tls_start, std::min(m.end, fs + kTcbBytes),
                           Named(format::LeakRootKind::kTls, "TLS of " + ThreadName(t), 0, t.thread,
                                 tls_start, fs + kTcbBytes - tls_start)});
      }
    }
    leakscan::RootId whole;
    const format::Module* module = ModuleCovering(in_.modules, m.start, m.end);
    if (stack_of != nullptr) {
      const uint64_t sp = stack_of->regs.rsp;
      start = sp - kRedZone > m.start ? sp - kRedZone : m.start;
      whole = Named(format::LeakRootKind::kStack, "stack of " + ThreadName(*stack_of), 0,
                    stack_of->thread, start, m.end - start);
    } else if (module != nullptr) {
      const std::string_view base = Basename(module->path);
      whole = Named(format::LeakRootKind::kModuleData, "data of " + std::string(base), module->id,
                    0, m.start, m.end - m.start);
      const std::vector<symbolize::DataSymbol>& symbols = in_.module_data(*module).symbols;
      // Sorted by start: from the first that may end past m.start.
      auto s = std::lower_bound(
          symbols.begin(), symbols.end(), m.start,
          [](const symbolize::DataSymbol& d, uint64_t a) { return d.start + d.size <= a; });
      GlobalIds& ids = globals_[base];
      for (; s != symbols.end() && s->start < m.end; ++s) {
        if (s->start + s->size <= m.start) continue;
        special.push_back({s->start, s->start + s->size, Global(ids, base, *s, module->id)});
      }
    } else if (m.file_backed() || m.shared) {
      whole = NewRoot(format::LeakRootKind::kMapping, "mapping of " + m.path, 0, 0, m.start,
                      m.end - m.start);
    } else {
      whole = NewRoot(format::LeakRootKind::kAnonymous,
                      "anonymous mapping at " + Hex(m.start) + " (" +
                          std::to_string((m.end - m.start) / 1024) + " KiB)",
                      0, 0, m.start, m.end - m.start);
    }
    std::sort(special.begin(), special.end(),
              [](const Piece& a, const Piece& b) { return a.start < b.start; });
    uint64_t at = start;
    for (const Piece& p : special) {
      const uint64_t s = std::max(p.start, at), e = std::min(p.end, m.end);
      if (s >= e) continue;
      Add(at, s, whole);
      Add(s, e, p.root);
      at = e;
    }
    Add(at, m.end, whole);
  }

  // [start, end) as a root range, less heaprec's own memory in it.
  void Add(uint64_t start, uint64_t end, leakscan::RootId root) {
    for (const auto& [lo, hi] : in_.excluded_ranges) {
      if (lo < end && hi > start) {
        Add(start, lo, root);
        Add(hi, end, root);
        return;
      }
    }
    if (start >= end) return;
    out_.ranges.push_back({start, end, root});
    out_.bytes += end - start;
  }

  const RootsInput& in_;
  Roots out_;
  uint64_t static_tls_ = 0;
  std::map<std::string, leakscan::RootId> by_name_;
  // Globals' roots by module file name, then symbol name.
  std::map<std::string_view, GlobalIds> globals_;
};

}  // namespace

Roots BuildRoots(const RootsInput& in) { return Builder(in).Build(); }

format::LeakRoot Roots::Root(leakscan::RootId id) const {
  format::LeakRoot r = roots[id - 1];
  const auto& [symbol, base] = global_names[id - 1];
  if (!symbol.empty() || !base.empty()) {
    r.name.reserve(symbol.size() + base.size() + 3);
    r.name.append(symbol).append(" [").append(base).append("]");
  }
  return r;
}

}  // namespace heaprec::recorder::launcher
