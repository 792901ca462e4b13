// ComputeRetention (retention.h): the strong graph, its dominators, and each
// block's node just below the super-root.
#include "recorder/leakscan/retention.h"

#include <algorithm>

#include "recorder/leakscan/dominators.h"

namespace heaprec::recorder::leakscan {

Retention ComputeRetention(const PointerGraph& graph, std::span<const LiveBlock> blocks,
                           const BlockStates& states) {
  Retention out;
  const uint32_t n = static_cast<uint32_t>(blocks.size());

  // Nodes: 0 the super-root, 1..k the root ids (ascending), k+1+i block i.
  std::vector<RootId> roots;
  for (const RootRun& run : graph.root_runs) roots.push_back(run.root);
  std::sort(roots.begin(), roots.end());
  roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
  const uint32_t k = static_cast<uint32_t>(roots.size());
  const uint32_t first_block = 1 + k;
  auto root_node = [&](RootId id) {
    return 1 +
           static_cast<uint32_t>(std::lower_bound(roots.begin(), roots.end(), id) - roots.begin());
  };
  auto reachable = [&](uint32_t block) { return states.state(block) == BlockStates::kReachable; };

  // Strong edges, counted then placed (a root's runs may be scattered).
  Digraph g;
  g.offsets.assign(static_cast<size_t>(first_block) + n + 1, 0);
  std::vector<uint64_t>& off = g.offsets;
  off[1] = k;  // the super-root's
  uint64_t begin = 0;
  for (const RootRun& run : graph.root_runs) {
    const uint32_t node = root_node(run.root);
    for (uint64_t e = begin; e < run.end; ++e) {
      const uint32_t edge = graph.edges[e];
      if (IsStrongEdge(edge) && reachable(EdgeTarget(edge))) ++off[node + 1];
    }
    begin = run.end;
  }
  for (uint32_t b = 0; b < n; ++b) {
    if (!reachable(b)) continue;
    for (const uint32_t edge : graph.BlockEdges(b)) {
      if (IsStrongEdge(edge) && reachable(EdgeTarget(edge))) ++off[first_block + b + 1];
    }
  }
  for (size_t v = 0; v + 1 < off.size(); ++v) off[v + 1] += off[v];
  g.targets.resize(off.back());
  {
    std::vector<uint64_t> fill(off.begin(), off.end() - 1);
    for (uint32_t r = 0; r < k; ++r) g.targets[fill[0]++] = 1 + r;
    begin = 0;
    for (const RootRun& run : graph.root_runs) {
      const uint32_t node = root_node(run.root);
      for (uint64_t e = begin; e < run.end; ++e) {
        const uint32_t edge = graph.edges[e];
        if (IsStrongEdge(edge) && reachable(EdgeTarget(edge))) {
          g.targets[fill[node]++] = first_block + EdgeTarget(edge);
        }
      }
      begin = run.end;
    }
    for (uint32_t b = 0; b < n; ++b) {
      if (!reachable(b)) continue;
      for (const uint32_t edge : graph.BlockEdges(b)) {
        if (IsStrongEdge(edge) && reachable(EdgeTarget(edge))) {
          g.targets[fill[first_block + b]++] = first_block + EdgeTarget(edge);
        }
      }
    }
  }
  out.strong_edges = g.targets.size();

  const DominatorTree tree = ComputeDominators(g, 0);
  std::vector<uint64_t>().swap(g.offsets);
  std::vector<uint32_t>().swap(g.targets);

  // The node just below the super-root, in preorder (a node's idom first).
  std::vector<uint32_t> top(tree.idom.size(), kNoNode);
  out.retaining_root.assign(n, kNoRoot);
  out.by_root.resize(k);
  for (uint32_t r = 0; r < k; ++r) out.by_root[r].root = roots[r];
  for (const uint32_t v : tree.preorder) {
    if (v == 0) continue;
    top[v] = tree.idom[v] == 0 ? v : top[tree.idom[v]];
    if (v < first_block) continue;
    const uint32_t b = v - first_block;
    RootRetention& r = top[v] < first_block ? out.by_root[top[v] - 1] : out.several;
    out.retaining_root[b] = r.root;
    r.bytes += blocks[b].size;
    ++r.blocks;
  }
  return out;
}

}  // namespace heaprec::recorder::leakscan
