// Semi-NCA dominators (dominators.h). Everything below works on preorder
// numbers (0 = root) except the DFS itself.
#include "recorder/leakscan/dominators.h"

#include <utility>

namespace heaprec::recorder::leakscan {

namespace {

// Depth-first search from root: preorder numbers, DFS-tree parents.
void Search(const Digraph& g, uint32_t root, std::vector<uint32_t>* number,
            std::vector<uint32_t>* order, std::vector<uint32_t>* parent) {
  struct Frame {
    uint32_t node;
    uint64_t next;  // the next edge to follow
  };
  std::vector<Frame> stack;
  (*number)[root] = 0;
  order->push_back(root);
  parent->push_back(kNoNode);
  stack.push_back({root, g.offsets[root]});
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next == g.offsets[f.node + 1]) {
      stack.pop_back();
      continue;
    }
    const uint32_t w = g.targets[f.next++];
    if ((*number)[w] != kNoNode) continue;
    const uint32_t parent_number = (*number)[f.node];
    (*number)[w] = static_cast<uint32_t>(order->size());
    order->push_back(w);
    parent->push_back(parent_number);
    stack.push_back({w, g.offsets[w]});  // f is invalid from here
  }
}

}  // namespace

DominatorTree ComputeDominators(const Digraph& g, uint32_t root) {
  const uint32_t n = g.node_count();
  DominatorTree tree;
  tree.idom.assign(n, kNoNode);
  if (root >= n) return tree;
  std::vector<uint32_t> number(n, kNoNode);
  std::vector<uint32_t>& order = tree.preorder;
  std::vector<uint32_t> parent;
  Search(g, root, &number, &order, &parent);
  const uint32_t r = static_cast<uint32_t>(order.size());

  // Predecessors of each reached node, by preorder number.
  std::vector<uint64_t> pred_offsets(r + 1, 0);
  for (uint32_t v = 0; v < r; ++v) {
    const uint32_t node = order[v];
    for (uint64_t e = g.offsets[node]; e < g.offsets[node + 1]; ++e) {
      ++pred_offsets[number[g.targets[e]] + 1];
    }
  }
  for (uint32_t v = 0; v < r; ++v) pred_offsets[v + 1] += pred_offsets[v];
  std::vector<uint32_t> preds(pred_offsets[r]);
  {
    std::vector<uint64_t> fill(pred_offsets.begin(), pred_offsets.end() - 1);
    for (uint32_t v = 0; v < r; ++v) {
      const uint32_t node = order[v];
      for (uint64_t e = g.offsets[node]; e < g.offsets[node + 1]; ++e) {
        preds[fill[number[g.targets[e]]]++] = v;
      }
    }
  }
  std::vector<uint32_t>().swap(number);

  // Semidominators, in reverse preorder. ancestor[v] != kNoNode once v is
  // linked (processed); label[v] is the node of least semi on v's compressed
  // path.
  std::vector<uint32_t> semi(r), label(r), ancestor(r, kNoNode);
  for (uint32_t v = 0; v < r; ++v) semi[v] = label[v] = v;
  std::vector<uint32_t> path;
  auto eval = [&](uint32_t v) {
    if (ancestor[v] == kNoNode) return v;
    // Compress v's path up to the last linked ancestor below an unlinked one.
    path.clear();
    uint32_t x = v;
    while (ancestor[ancestor[x]] != kNoNode) {
      path.push_back(x);
      x = ancestor[x];
    }
    while (!path.empty()) {
      const uint32_t y = path.back();
      path.pop_back();
      const uint32_t a = ancestor[y];
      if (semi[label[a]] < semi[label[y]]) label[y] = label[a];
      ancestor[y] = ancestor[a];
    }
    return label[v];
  };
  for (uint32_t w = r - 1; w >= 1; --w) {
    uint32_t s = semi[w];
    for (uint64_t e = pred_offsets[w]; e < pred_offsets[w + 1]; ++e) {
      const uint32_t u = eval(preds[e]);
      if (semi[u] < s) s = semi[u];
    }
    semi[w] = s;
    ancestor[w] = parent[w];
  }
  std::vector<uint32_t>().swap(preds);
  std::vector<uint32_t>().swap(label);
  std::vector<uint32_t>().swap(ancestor);

  // Immediate dominators, in preorder: from the parent up the dominator
  // tree built so far to the first node not below the semidominator.
  std::vector<uint32_t> idom(std::move(parent));
  for (uint32_t w = 1; w < r; ++w) {
    uint32_t d = idom[w];
    while (d > semi[w]) d = idom[d];
    idom[w] = d;
  }
  for (uint32_t w = 1; w < r; ++w) tree.idom[order[w]] = order[idom[w]];
  return tree;
}

}  // namespace heaprec::recorder::leakscan
