// Leaks by kind for an HTML report (page_leak_kinds.h).
#include "analyzers/html/page_leak_kinds.h"

#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

namespace heaprec::analyzers::html {

using nlohmann::json;

json LeakKindsPageJson(const LeakReport& r, const LiveHeap& heap, const RangeProfile& range,
                       StackNodes* nodes) {
  if (!r.no_scan.empty()) return nullptr;
  // (node, bucket, kind) -> blocks, bytes; sorted so the columns are too.
  std::map<std::tuple<int32_t, uint32_t, uint8_t>, KindTotals> cells;
  const BlockKind kind_of = BlockKinds(r);
  heap.blocks().ForEach([&](uint64_t id, const LiveBlock& b) {
    const std::optional<format::LeakKind> kind = kind_of(id, b);
    if (!kind) return;  // suppressed: never shown
    const Estimate est = heap.EstimateOf(id, b);
    cells[{nodes->NodeOf(b.stack), range.BucketOfBlock(id), static_cast<uint8_t>(*kind)}].Add(
        est.bytes, est.count);
  });
  json node = json::array(), bucket = json::array(), kind = json::array(), n = json::array(),
       bytes = json::array();
  for (const auto& [key, t] : cells) {
    node.push_back(std::get<0>(key));
    bucket.push_back(std::get<1>(key));
    kind.push_back(std::get<2>(key));
    n.push_back(t.blocks);
    bytes.push_back(t.bytes);
  }
  // What holds the still reachable blocks: (node, root) -> bytes.
  std::vector<std::string> roots;
  std::unordered_map<std::string, int32_t> root_index;
  std::map<std::pair<int32_t, int32_t>, uint64_t> held;
  for (const LeakSite& s : r.sites) {
    if (s.suppressed != nullptr || s.kind != format::LeakKind::kReachable) continue;
    const int32_t at = nodes->NodeOf(s.site.stack);
    for (const HeldBy& h : s.held_by) {
      const auto [it, added] = root_index.emplace(h.root, int32_t(roots.size()));
      if (added) roots.push_back(h.root);
      held[{at, it->second}] += h.bytes;
    }
  }
  json held_node = json::array(), held_root = json::array(), held_bytes = json::array();
  for (const auto& [key, b] : held) {
    held_node.push_back(key.first);
    held_root.push_back(key.second);
    held_bytes.push_back(b);
  }
  return {{"cells", {{"node", node}, {"bucket", bucket}, {"kind", kind}, {"n", n}, {"b", bytes}}},
          {"roots", roots},
          {"held_by", {{"node", held_node}, {"root", held_root}, {"bytes", held_bytes}}}};
}

json BaseLeakKindsJson(const LeakReport& r, StackNodes* nodes) {
  if (!r.no_scan.empty()) return nullptr;
  std::map<std::pair<int32_t, uint8_t>, KindTotals> sites;
  for (const LeakSite& s : r.sites) {
    if (s.suppressed != nullptr) continue;
    sites[{nodes->NodeOf(s.site.stack), static_cast<uint8_t>(s.kind)}].Add(s.site.bytes,
                                                                           s.site.count);
  }
  json node = json::array(), kind = json::array(), n = json::array(), bytes = json::array();
  for (const auto& [key, t] : sites) {
    node.push_back(key.first);
    kind.push_back(key.second);
    n.push_back(t.blocks);
    bytes.push_back(t.bytes);
  }
  return {{"node", node}, {"kind", kind}, {"n", n}, {"b", bytes}};
}

}  // namespace heaprec::analyzers::html
