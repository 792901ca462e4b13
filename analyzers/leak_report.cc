// Leaks by kind (leak_report.h).
#include "analyzers/leak_report.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "analyzers/estimate.h"
#include "analyzers/human_bytes.h"

namespace heaprec::analyzers {

std::string TotalsText(const KindTotals& t) {
  return Commas(t.bytes) + " bytes in " + Commas(t.blocks) + " blocks";
}
namespace {

using format::Api;
using format::LeakKind;

struct Group {
  uint32_t stack = 0;
  LeakKind kind = LeakKind::kUnknown;
  Api api = Api::kMalloc;
  uint64_t bytes = 0, blocks = 0, indirect = 0;
  std::map<uint32_t, uint64_t> by_root;  // root id -> bytes
};

// The scan's entry for block, or -1.
int64_t Find(const format::LeakScan& scan, uint64_t block) {
  const auto it = std::lower_bound(scan.blocks.begin(), scan.blocks.end(), block);
  return it == scan.blocks.end() || *it != block ? -1 : it - scan.blocks.begin();
}

// The allocation stack as valgrind matches suppressions against it.
std::vector<LeakFrame> SuppressionStack(const SymbolTable& symbols, uint32_t stack, Api api) {
  std::vector<LeakFrame> frames = {AllocationFrame(api)};
  for (const Frame& f : symbols.Frames(stack)) {
    frames.push_back({f.function == "??" ? "" : f.function, "", f.file, f.line, f.module_path});
  }
  return frames;
}

}  // namespace

LeakKindSet DefaultLeakKinds() {
  LeakKindSet s;
  s.Add(LeakKind::kDefinite);
  s.Add(LeakKind::kPossible);
  return s;
}

bool Shown(const LeakSite& s, LeakKindSet shown) {
  return s.suppressed == nullptr && (s.kind == LeakKind::kUnknown || shown.Contains(s.kind));
}

std::vector<Site> ShownSites(const LeakReport& r, LeakKindSet shown) {
  std::map<uint32_t, Site> by_stack;
  for (const LeakSite& s : r.sites) {
    if (!Shown(s, shown)) continue;
    Site& m = by_stack[s.site.stack];
    m.stack = s.site.stack;
    m.bytes += s.site.bytes;
    m.count += s.site.count;
  }
  std::vector<Site> out;
  for (const auto& [stack, site] : by_stack) out.push_back(site);
  std::sort(out.begin(), out.end(), [](const Site& a, const Site& b) {
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.count != b.count) return a.count > b.count;
    return a.stack < b.stack;
  });
  return out;
}

bool CountsAsError(const LeakSite& s, LeakKindSet errors_for) {
  if (s.site.count == 0) return false;
  return errors_for.Contains(s.kind) ||
         (s.kind == LeakKind::kUnknown && errors_for.Contains(LeakKind::kDefinite));
}

uint64_t LeakErrors(const LeakReport& r, LeakKindSet errors_for) {
  uint64_t errors = 0;
  for (const LeakSite& s : r.sites)
    errors += s.suppressed == nullptr && CountsAsError(s, errors_for);
  return errors;
}

const char* LeakKindWords(LeakKind kind) {
  switch (kind) {
    case LeakKind::kDefinite:
      return "definitely lost";
    case LeakKind::kIndirect:
      return "indirectly lost";
    case LeakKind::kPossible:
      return "possibly lost";
    case LeakKind::kReachable:
      return "still reachable";
    case LeakKind::kUnknown:
      break;
  }
  return "not freed, kind unknown";
}

const char* LeakKindKey(LeakKind kind) {
  switch (kind) {
    case LeakKind::kDefinite:
      return "definitely_lost";
    case LeakKind::kIndirect:
      return "indirectly_lost";
    case LeakKind::kPossible:
      return "possibly_lost";
    case LeakKind::kReachable:
      return "still_reachable";
    case LeakKind::kUnknown:
      break;
  }
  return "unknown";
}

BlockKind BlockKinds(const LeakReport& r) {
  // Sites are per (stack, kind): the suppressed ones by that key.
  std::unordered_set<uint64_t> suppressed;
  for (const LeakSite& s : r.sites) {
    if (s.suppressed != nullptr)
      suppressed.insert((uint64_t{s.site.stack} << 3) | static_cast<uint64_t>(s.kind));
  }
  const format::LeakScan* scan =
      r.scan != nullptr && r.scan->status != format::LeakScan::Status::kNotDone ? r.scan : nullptr;
  return [suppressed = std::move(suppressed), scan](uint64_t id,
                                                    const LiveBlock& b) -> std::optional<LeakKind> {
    LeakKind kind = LeakKind::kUnknown;
    if (scan != nullptr) {
      const int64_t i = Find(*scan, id);
      if (i >= 0) kind = scan->KindAt(static_cast<size_t>(i));
    }
    if (suppressed.count((uint64_t{b.stack} << 3) | static_cast<uint64_t>(kind)) != 0) {
      return std::nullopt;
    }
    return kind;
  };
}

BlockFilter ShownBlocks(const LeakReport& r, LeakKindSet shown) {
  // Shown: not suppressed, and of a kind shown (or unknown), as Shown().
  return [kinds = BlockKinds(r), shown](uint64_t id, const LiveBlock& b) {
    const std::optional<LeakKind> kind = kinds(id, b);
    return kind && (*kind == LeakKind::kUnknown || shown.Contains(*kind));
  };
}

LeakFrame AllocationFrame(Api api) {
  switch (api) {
    case Api::kNew:
      return {"operator new(unsigned long)", "_Znwm", "", 0, ""};
    case Api::kNewArray:
      return {"operator new[](unsigned long)", "_Znam", "", 0, ""};
    case Api::kNewNothrow:
      return {"operator new(unsigned long, std::nothrow_t const&)", "_ZnwmRKSt9nothrow_t", "", 0,
              ""};
    case Api::kNewArrayNothrow:
      return {"operator new[](unsigned long, std::nothrow_t const&)", "_ZnamRKSt9nothrow_t", "", 0,
              ""};
    case Api::kNewAligned:
      return {"operator new(unsigned long, std::align_val_t)", "_ZnwmSt11align_val_t", "", 0, ""};
    case Api::kNewArrayAligned:
      return {"operator new[](unsigned long, std::align_val_t)", "_ZnamSt11align_val_t", "", 0, ""};
    case Api::kNewAlignedNothrow:
      return {"operator new(unsigned long, std::align_val_t, std::nothrow_t const&)",
              "_ZnwmSt11align_val_tRKSt9nothrow_t", "", 0, ""};
    case Api::kNewArrayAlignedNothrow:
      return {"operator new[](unsigned long, std::align_val_t, std::nothrow_t const&)",
              "_ZnamSt11align_val_tRKSt9nothrow_t", "", 0, ""};
    default:
      break;
  }
  const std::string name(format::ApiName(api));
  return {name, name, "", 0, ""};
}

LeakReport BuildLeakReport(const LiveHeap& heap, const format::LeakScan* scan,
                           const std::string& no_scan_reason, const SymbolTable& symbols,
                           const Suppressions* suppressions) {
  LeakReport r;
  const bool scanned = scan != nullptr && scan->status != format::LeakScan::Status::kNotDone;
  r.scan = scan;
  if (!scanned) r.no_scan = scan != nullptr ? scan->note : no_scan_reason;
  // One group per (stack, kind).
  std::unordered_map<uint64_t, Group> groups;
  heap.blocks().ForEach([&](uint64_t id, const LiveBlock& b) {
    const Estimate est = heap.EstimateOf(id, b);
    r.in_use.Add(est.bytes, est.count);
    LeakKind kind = LeakKind::kUnknown;
    uint32_t root = 0;
    uint64_t indirect = 0;
    if (scanned) {
      const int64_t i = Find(*scan, id);
      if (i >= 0) {
        kind = scan->KindAt(static_cast<size_t>(i));
        const auto at = static_cast<size_t>(i);
        root = at < scan->block_roots.size() ? scan->block_roots[at] : 0;
        indirect = at < scan->block_indirect.size() ? scan->block_indirect[at] : 0;
        const auto h = static_cast<size_t>(scan->HeuristicAt(static_cast<size_t>(i)));
        if (h != 0 && h < r.heuristics.size()) r.heuristics[h].Add(est.bytes, est.count);
      }
    }
    Group& g = groups[(uint64_t{b.stack} << 3) | static_cast<uint64_t>(kind)];
    g.stack = b.stack;
    g.kind = kind;
    g.api = b.api;
    g.bytes += est.bytes;
    g.blocks += est.count;
    g.indirect += indirect;
    if (kind == LeakKind::kReachable) g.by_root[root] += est.bytes;
  });
  for (auto& [key, g] : groups) {
    LeakSite s;
    s.site = {g.stack, g.bytes, g.blocks};
    s.kind = g.kind;
    s.indirect_bytes = g.indirect;
    s.alloc_function = AllocationFrame(g.api).function;
    for (const auto& [root, bytes] : g.by_root) {
      const std::string name = root != 0 && root <= scan->roots.size()
                                   ? scan->roots[root - 1].name
                                   : std::string("several roots");
      s.held_by.push_back({name, bytes});
    }
    std::sort(s.held_by.begin(), s.held_by.end(),
              [](const HeldBy& a, const HeldBy& b) { return a.bytes > b.bytes; });
    // A block of unknown kind (no scan: a heaptrack recording, a sample)
    // matches LeakSanitizer entries only, which hold for any kind; a
    // valgrind entry names its kinds (match-leak-kinds), and unknown is none.
    if (suppressions != nullptr) {
      s.suppressed = suppressions->Match(g.kind, SuppressionStack(symbols, g.stack, g.api));
    }
    if (s.suppressed != nullptr) {
      r.suppressed.Add(g.bytes, g.blocks);
    } else {
      r.kinds[static_cast<size_t>(g.kind)].Add(g.bytes, g.blocks);
    }
    r.sites.push_back(std::move(s));
  }
  std::sort(r.sites.begin(), r.sites.end(), [](const LeakSite& a, const LeakSite& b) {
    if (a.site.bytes != b.site.bytes) return a.site.bytes > b.site.bytes;
    if (a.site.count != b.site.count) return a.site.count > b.site.count;
    if (a.kind != b.kind) return a.kind < b.kind;
    return a.site.stack < b.site.stack;
  });
  return r;
}

}  // namespace heaprec::analyzers
