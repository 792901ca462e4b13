// ComputeDominators against the definition (Dom(root) = {root}, Dom(v) = {v}
// plus the intersection of its predecessors' sets, to a fixpoint) on random
// graphs, and on the shapes heaps make: long lists, doubly linked lists
// entered at both ends, cycles.
#include "recorder/leakscan/dominators.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <utility>
#include <vector>

namespace heaprec::recorder::leakscan {
namespace {

Digraph FromEdges(uint32_t n, const std::vector<std::pair<uint32_t, uint32_t>>& edges) {
  Digraph g;
  g.offsets.assign(n + 1, 0);
  for (const auto& e : edges) ++g.offsets[e.first + 1];
  for (uint32_t v = 0; v < n; ++v) g.offsets[v + 1] += g.offsets[v];
  g.targets.resize(edges.size());
  std::vector<uint64_t> fill(g.offsets.begin(), g.offsets.end() - 1);
  for (const auto& e : edges) g.targets[fill[e.first]++] = e.second;
  return g;
}

// Immediate dominators from dominator sets.
std::vector<uint32_t> NaiveIdom(uint32_t n, const std::vector<std::pair<uint32_t, uint32_t>>& edges,
                                uint32_t root) {
  std::vector<bool> reached(n, false);
  reached[root] = true;
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& e : edges) {
      if (reached[e.first] && !reached[e.second]) reached[e.second] = changed = true;
    }
  }
  std::vector<std::set<uint32_t>> dom(n);
  std::set<uint32_t> all;
  for (uint32_t v = 0; v < n; ++v) {
    if (reached[v]) all.insert(v);
  }
  for (uint32_t v = 0; v < n; ++v) dom[v] = v == root ? std::set<uint32_t>{root} : all;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t v = 0; v < n; ++v) {
      if (!reached[v] || v == root) continue;
      std::set<uint32_t> meet = all;
      for (const auto& e : edges) {
        if (e.second != v || !reached[e.first]) continue;
        std::set<uint32_t> both;
        for (uint32_t d : meet) {
          if (dom[e.first].count(d)) both.insert(d);
        }
        meet = both;
      }
      meet.insert(v);
      if (meet != dom[v]) {
        dom[v] = meet;
        changed = true;
      }
    }
  }
  // The strict dominator with the most dominators of its own.
  std::vector<uint32_t> idom(n, kNoNode);
  for (uint32_t v = 0; v < n; ++v) {
    if (!reached[v] || v == root) continue;
    size_t best = 0;
    for (uint32_t d : dom[v]) {
      if (d != v && dom[d].size() >= best) {
        best = dom[d].size();
        idom[v] = d;
      }
    }
  }
  return idom;
}

TEST(Dominators, RandomGraphsMatchTheDefinition) {
  std::mt19937_64 rng(20240611);
  for (int round = 0; round < 400; ++round) {
    const uint32_t n = 1 + rng() % 40;
    const uint32_t m = rng() % (3 * n + 1);
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    for (uint32_t k = 0; k < m; ++k) {
      edges.push_back({static_cast<uint32_t>(rng() % n), static_cast<uint32_t>(rng() % n)});
    }
    const uint32_t root = rng() % n;
    const DominatorTree tree = ComputeDominators(FromEdges(n, edges), root);
    ASSERT_EQ(std::vector<uint32_t>(tree.idom.begin(), tree.idom.end()), NaiveIdom(n, edges, root))
        << "round " << round;
    // Preorder: root first, each node after its immediate dominator.
    ASSERT_FALSE(tree.preorder.empty());
    EXPECT_EQ(tree.preorder[0], root);
    std::vector<bool> seen(n, false);
    for (uint32_t v : tree.preorder) {
      if (v != root) {
        EXPECT_TRUE(seen[tree.idom[v]]);
      }
      seen[v] = true;
    }
  }
}

TEST(Dominators, LongListNeedsNoRecursion) {
  const uint32_t n = 2'000'000;
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  for (uint32_t v = 0; v + 1 < n; ++v) edges.push_back({v, v + 1});
  const DominatorTree tree = ComputeDominators(FromEdges(n, edges), 0);
  ASSERT_EQ(tree.preorder.size(), n);
  for (uint32_t v = 1; v < n; ++v) ASSERT_EQ(tree.idom[v], v - 1);
}

TEST(Dominators, DoublyLinkedListEnteredAtBothEnds) {
  // 0 -> 1 (head), 0 -> n-1 (tail); i <-> i+1.
  const uint32_t n = 100'000;
  std::vector<std::pair<uint32_t, uint32_t>> edges = {{0, 1}, {0, n - 1}};
  for (uint32_t v = 1; v + 1 < n; ++v) {
    edges.push_back({v, v + 1});
    edges.push_back({v + 1, v});
  }
  const DominatorTree tree = ComputeDominators(FromEdges(n, edges), 0);
  for (uint32_t v = 1; v < n; ++v) ASSERT_EQ(tree.idom[v], 0u);
}

TEST(Dominators, UnreachedNodesHaveNoDominator) {
  const DominatorTree tree = ComputeDominators(FromEdges(4, {{0, 1}, {2, 3}, {3, 1}}), 0);
  EXPECT_EQ(std::vector<uint32_t>(tree.idom.begin(), tree.idom.end()),
            (std::vector<uint32_t>{kNoNode, 0, kNoNode, kNoNode}));
  EXPECT_EQ(std::vector<uint32_t>(tree.preorder.begin(), tree.preorder.end()),
            (std::vector<uint32_t>{0, 1}));
}

}  // namespace
}  // namespace heaprec::recorder::leakscan
