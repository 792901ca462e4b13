// A massif out file's text (massif_text.h).
#include "analyzers/massif_text.h"

#include <algorithm>
#include <map>
#include <memory>

#include "analyzers/valgrind_frames.h"

namespace heaprec::analyzers {
namespace {

// massif's default --threshold, in hundredths of a percent.
constexpr uint64_t kThresholdBasisPoints = 100;
constexpr const char* kThresholdText = "1.00%";
constexpr const char* kTopText = "(heap allocation functions) malloc/new/new[], --alloc-fns, etc.";

struct Node {
  uint64_t bytes = 0;
  std::map<std::string, std::unique_ptr<Node>> children;  // by frame text
};

// Each stack's frames as valgrind writes them, innermost first, made once.
class FrameTexts {
 public:
  explicit FrameTexts(const SymbolTable& symbols) : symbols_(symbols) {}
  const std::vector<std::string>& Of(uint32_t stack) {
    auto [it, inserted] = texts_.try_emplace(stack);
    if (!inserted) return it->second;
    for (const Frame& f : symbols_.Frames(stack)) it->second.push_back(ValgrindFrameText(f));
    if (it->second.empty()) it->second.push_back("0x0: ???");  // no stack recorded
    return it->second;
  }

 private:
  const SymbolTable& symbols_;
  std::map<uint32_t, std::vector<std::string>> texts_;
};

bool Significant(uint64_t bytes, uint64_t total) {
  return total != 0 && bytes * 10000 / total >= kThresholdBasisPoints;
}

void WriteNode(const Node& node, const std::string& text, size_t depth, uint64_t total,
               std::string* out) {
  std::vector<std::pair<const std::string*, const Node*>> kids;
  for (const auto& [t, kid] : node.children) {
    if (kid->bytes != 0) kids.push_back({&t, kid.get()});
  }
  std::stable_sort(kids.begin(), kids.end(),
                   [](const auto& a, const auto& b) { return a.second->bytes > b.second->bytes; });
  size_t significant = 0;
  uint64_t below_bytes = 0;
  for (const auto& k : kids) {
    if (Significant(k.second->bytes, total)) {
      ++significant;
    } else {
      below_bytes += k.second->bytes;
    }
  }
  const size_t below = kids.size() - significant;
  const std::string indent(depth, ' ');
  *out += indent + "n" + std::to_string(significant + (below != 0 ? 1 : 0)) + ": " +
          std::to_string(node.bytes) + " " + text + "\n";
  for (const auto& k : kids) {
    if (Significant(k.second->bytes, total)) WriteNode(*k.second, *k.first, depth + 1, total, out);
  }
  if (below == 0) return;
  *out += indent + " n0: " + std::to_string(below_bytes) + " in " + std::to_string(below) +
          (below == 1 ? " place, below" : " places, all below") + " massif's threshold (" +
          kThresholdText + ")\n";
}

}  // namespace

std::string MassifExtraNote(MassifResident resident) {
  switch (resident) {
    case MassifResident::kAnonymous:
      return "mem_heap_extra_B = the process's anonymous RSS (RssAnon, sampled every 10 ms) "
             "beyond the live heap (allocator overhead and fragmentation, thread stacks, other "
             "anonymous mappings), so the total is that RSS (or the heap, where larger)";
    case MassifResident::kUnsplit:
      return "mem_heap_extra_B = the process's RSS (heaptrack's samples: anonymous and file "
             "pages together, heaptrack's own memory included) beyond the live heap, so the "
             "total is that RSS (or the heap, where larger)";
    case MassifResident::kNone:
      break;
  }
  return "mem_heap_extra_B is 0: the trace holds no RSS samples (heaprec records them from "
         "trace format 3.4 on)";
}

std::string MassifText(const MassifHeader& header, const std::vector<MassifSnapshot>& snapshots,
                       const SymbolTable& symbols) {
  std::string out = "desc: " + header.desc + "\ncmd: " + header.cmd + "\ntime_unit: ms\n";
  FrameTexts frames(symbols);
  for (size_t i = 0; i < snapshots.size(); ++i) {
    const MassifSnapshot& s = snapshots[i];
    out += "#-----------\nsnapshot=" + std::to_string(i) + "\n#-----------\n";
    out += "time=" + std::to_string(s.time_ns / 1000000) + "\n";
    // mem_heap_extra_B: the resident memory beyond the live heap (massif.h),
    // so ms_print's total is the process's (anonymous) RSS. The tree below
    // is the heap alone, as massif's.
    out += "mem_heap_B=" + std::to_string(s.bytes) +
           "\nmem_heap_extra_B=" + std::to_string(s.extra_bytes) + "\nmem_stacks_B=0\n";
    if (!s.detailed) {
      out += "heap_tree=empty\n";
      continue;
    }
    out += s.peak ? "heap_tree=peak\n" : "heap_tree=detailed\n";
    Node root;
    for (const Site& site : s.sites) {
      if (site.bytes == 0) continue;
      root.bytes += site.bytes;
      Node* at = &root;
      for (const std::string& f : frames.Of(site.stack)) {
        std::unique_ptr<Node>& kid = at->children[f];
        if (!kid) kid = std::make_unique<Node>();
        kid->bytes += site.bytes;
        at = kid.get();
      }
    }
    WriteNode(root, kTopText, 0, s.bytes, &out);
  }
  return out;
}

}  // namespace heaprec::analyzers
