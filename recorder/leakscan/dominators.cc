// Semi-NCA dominators (dominators.h). Everything below works on preorder
// numbers (0 = root) except the DFS itself.
#include "recorder/leakscan/dominators.h"

#include <utility>

namespace heaprec::recorder::leakscan {

namespace {

// Depth-first search from root: preorder numbers, DFS-tree parents, and the
// edges that are not tree edges, as (target, source) preorder numbers. A
// node's predecessors are its parent and the sources of the non-tree edges
// into it: the semidominators need nothing else, and the graph is not read
// again.
void Search(const Digraph& g, uint32_t root, BigVector<uint32_t>* number,
            BigVector<uint32_t>* order, BigVector<uint32_t>* parent,
            BigVector<uint64_t>* non_tree) {
  struct Frame {
    uint32_t number;  // the node's
    uint64_t next;    // the next edge to follow
    uint64_t end;     // one past the node's last edge
  };
  BigVector<Frame> stack;
  (*number)[root] = 0;
  order->push_back(root);
  parent->push_back(kNoNode);
  stack.push_back({0, g.offsets[root], g.offsets[root + 1]});
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next == f.end) {
      stack.pop_back();
      continue;
    }
    const uint32_t w = g.targets[f.next++];
    const uint32_t seen = (*number)[w];
    if (seen != kNoNode) {
      non_tree->push_back(uint64_t{seen} << 32 | f.number);
      continue;
    }
    const uint32_t w_number = static_cast<uint32_t>(order->size());
    (*number)[w] = w_number;
    order->push_back(w);
    parent->push_back(f.number);
    stack.push_back({w_number, g.offsets[w], g.offsets[w + 1]});  // f is invalid from here
  }
}

}  // namespace

DominatorTree ComputeDominators(Digraph g, uint32_t root) {
  const uint32_t n = g.node_count();
  DominatorTree tree;
  if (root >= n) {
    tree.idom.assign(n, kNoNode);
    return tree;
  }
  BigVector<uint32_t> number(n, kNoNode);
  BigVector<uint32_t>& order = tree.preorder;
  BigVector<uint32_t> parent;
  BigVector<uint64_t> non_tree;
  order.reserve(n);
  parent.reserve(n);
  non_tree.reserve(g.targets.size());  // an upper bound: pages are touched as used
  Search(g, root, &number, &order, &parent, &non_tree);
  g = Digraph();
  const uint32_t r = static_cast<uint32_t>(order.size());

  // The non-tree predecessors of each node, by preorder number: a counting
  // sort of the pairs. pred_offsets[w + 1] counts w's, then is made the end
  // of w's range and counted down while filling, ending as its start: w's
  // are preds[pred_offsets[w + 1] .. pred_offsets[w + 2]).
  BigVector<uint64_t> pred_offsets(r + 2, 0);
  for (const uint64_t pair : non_tree) ++pred_offsets[(pair >> 32) + 1];
  for (uint32_t v = 0; v <= r; ++v) pred_offsets[v + 1] += pred_offsets[v];
  BigVector<uint32_t> preds(non_tree.size());
  for (const uint64_t pair : non_tree) {
    preds[--pred_offsets[(pair >> 32) + 1]] = static_cast<uint32_t>(pair);
  }
  BigVector<uint64_t>().swap(non_tree);

  // Semidominators, in reverse preorder. ancestor[v] != kNoNode once v is
  // linked (processed); label[v] is the node of least semi on v's compressed
  // path.
  BigVector<uint32_t> semi(r), label(r), ancestor(r, kNoNode);
  for (uint32_t v = 0; v < r; ++v) semi[v] = label[v] = v;
  BigVector<uint32_t> path;
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
    uint32_t s = parent[w];  // the tree edge: an unlinked predecessor of smaller number
    for (uint64_t e = pred_offsets[w + 1]; e < pred_offsets[w + 2]; ++e) {
      const uint32_t u = eval(preds[e]);
      if (semi[u] < s) s = semi[u];
    }
    semi[w] = s;
    ancestor[w] = parent[w];
  }
  BigVector<uint32_t>().swap(preds);
  BigVector<uint32_t>().swap(label);
  BigVector<uint32_t>().swap(ancestor);

  // Immediate dominators, in preorder: from the parent up the dominator
  // tree built so far to the first node not below the semidominator.
  BigVector<uint32_t> idom(std::move(parent));
  for (uint32_t w = 1; w < r; ++w) {
    uint32_t d = idom[w];
    while (d > semi[w]) d = idom[d];
    idom[w] = d;
  }
  // Per node, in number's place (nothing reads number any more): every
  // reached node but the root is order[w] for one w.
  number[root] = kNoNode;
  for (uint32_t w = 1; w < r; ++w) number[order[w]] = order[idom[w]];
  tree.idom = std::move(number);
  return tree;
}

}  // namespace heaprec::recorder::leakscan
