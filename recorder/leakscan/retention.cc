// ComputeRetention (retention.h): the strong graph, its dominators, and each
// block's node just below the super-root.
#include "recorder/leakscan/retention.h"

#include <algorithm>
#include <utility>

#include "recorder/leakscan/dominators.h"

namespace heaprec::recorder::leakscan {

Retention ComputeRetention(const PointerGraph& graph, std::span<const LiveBlock> blocks,
                           std::span<const uint32_t> reachable_order) {
  Retention out;
  const uint32_t n = static_cast<uint32_t>(blocks.size());

  // Nodes: 0 the super-root, 1..k the root ids (ascending), then the
  // Reachable blocks in the order phase 1 scanned them. That order follows
  // pointers much as the dominators' depth-first search will, so the search
  // and the arrays indexed by node then often step to a neighbour instead of
  // jumping across memory: numbered by address instead, the 10-million-block
  // benchmark's retention took about twice as long.
  std::vector<RootId> roots;
  for (const RootRun& run : graph.root_runs) roots.push_back(run.root);
  std::sort(roots.begin(), roots.end());
  roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
  const uint32_t k = static_cast<uint32_t>(roots.size());
  const uint32_t first_block = 1 + k;
  BigVector<uint32_t> node_of(n, kNoNode);  // per block
  for (size_t r = 0; r < reachable_order.size(); ++r) {
    node_of[reachable_order[r]] = first_block + static_cast<uint32_t>(r);
  }

  // The strong edges, node by node (a root's runs may be scattered: runs
  // sorted by root, stably).
  std::vector<uint32_t> runs(graph.root_runs.size());
  for (uint32_t i = 0; i < runs.size(); ++i) runs[i] = i;
  std::stable_sort(runs.begin(), runs.end(), [&](uint32_t a, uint32_t b) {
    return graph.root_runs[a].root < graph.root_runs[b].root;
  });
  Digraph g;
  const size_t node_count = static_cast<size_t>(first_block) + reachable_order.size();
  g.offsets.reserve(node_count + 1);
  g.targets.reserve(k + graph.edges.size());
  g.offsets.push_back(0);
  for (uint32_t r = 0; r < k; ++r) g.targets.push_back(1 + r);
  g.offsets.push_back(g.targets.size());
  auto add = [&](uint32_t edge) {
    if (!IsStrongEdge(edge)) return;
    const uint32_t to = node_of[EdgeTarget(edge)];
    if (to != kNoNode) g.targets.push_back(to);
  };
  for (size_t i = 0; i < runs.size(); ++i) {
    const RootRun& run = graph.root_runs[runs[i]];
    const uint64_t begin = runs[i] == 0 ? 0 : graph.root_runs[runs[i] - 1].end;
    for (uint64_t e = begin; e < run.end; ++e) add(graph.edges[e]);
    if (i + 1 == runs.size() || graph.root_runs[runs[i + 1]].root != run.root) {
      g.offsets.push_back(g.targets.size());
    }
  }
  // Blocks come in phase 1's order, not the graph's: their edges and the
  // edges' targets are fetched ahead, in three steps.
  const size_t count = reachable_order.size();
  for (size_t r = 0; r < count; ++r) {
    if (r + 16 < count) __builtin_prefetch(&graph.block_edges[reachable_order[r + 16]]);
    if (r + 8 < count) __builtin_prefetch(&graph.edges[graph.block_edges[reachable_order[r + 8]]]);
    if (r + 4 < count) {
      for (const uint32_t edge : graph.BlockEdges(reachable_order[r + 4])) {
        __builtin_prefetch(&node_of[EdgeTarget(edge)]);
      }
    }
    for (const uint32_t edge : graph.BlockEdges(reachable_order[r])) add(edge);
    g.offsets.push_back(g.targets.size());
  }
  out.strong_edges = g.targets.size();

  DominatorTree tree = ComputeDominators(std::move(g), 0);

  // The node just below the super-root, as a root's index or k for
  // "several", in place of each idom: in preorder a node's idom comes first,
  // so it is already replaced.
  BigVector<uint32_t>& top = tree.idom;
  for (const uint32_t v : tree.preorder) {
    if (v == 0) continue;
    const uint32_t d = top[v];
    top[v] = d == 0 ? (v < first_block ? v - 1 : k) : top[d];
  }
  out.retaining_root.assign(n, kNoRoot);
  out.by_root.resize(k);
  for (uint32_t r = 0; r < k; ++r) out.by_root[r].root = roots[r];
  for (uint32_t b = 0; b < n; ++b) {
    if (node_of[b] == kNoNode || top[node_of[b]] == kNoNode) continue;
    RootRetention& r = top[node_of[b]] < k ? out.by_root[top[node_of[b]]] : out.several;
    out.retaining_root[b] = r.root;
    r.bytes += blocks[b].size;
    ++r.blocks;
  }
  return out;
}

}  // namespace heaprec::recorder::leakscan
