// Dominator tree of a directed graph from one root: Georgiadis' semi-NCA
// (the semidominators of Lengauer-Tarjan with path compression, then each
// immediate dominator as the nearest common ancestor of its parent and
// semidominator in the tree built so far), as LLVM's GenericDomTree does.
// O(m log n) for the semidominators; iterative throughout (heap graphs hold
// lists millions long; no recursion).
//
// Used by retention.cc over the graph of strong pointers; generic here so it
// can be tested against a naive definition on random graphs.
//
// Allocates at most about 32 bytes a node and 8 bytes an edge besides the
// graph (freed first); no state; thread-safe.
#ifndef HEAPREC_RECORDER_LEAKSCAN_DOMINATORS_H_
#define HEAPREC_RECORDER_LEAKSCAN_DOMINATORS_H_

#include <cstdint>
#include <vector>

#include "recorder/leakscan/big_vector.h"

namespace heaprec::recorder::leakscan {

inline constexpr uint32_t kNoNode = 0xffffffffu;

// Nodes [0, node_count); v's successors are targets[offsets[v] ..
// offsets[v + 1]). Duplicate edges and self-loops are allowed.
struct Digraph {
  BigVector<uint64_t> offsets;  // node_count + 1
  BigVector<uint32_t> targets;
  uint32_t node_count() const {
    return offsets.empty() ? 0 : static_cast<uint32_t>(offsets.size() - 1);
  }
};

struct DominatorTree {
  // Per node: its immediate dominator; kNoNode for the root and for nodes the
  // root does not reach.
  BigVector<uint32_t> idom;
  // The reachable nodes in depth-first preorder, root first: every node comes
  // after its immediate dominator.
  BigVector<uint32_t> preorder;
};

// Takes the graph to free it once searched (its memory is the largest part
// of the peak otherwise).
DominatorTree ComputeDominators(Digraph graph, uint32_t root);

}  // namespace heaprec::recorder::leakscan

#endif  // HEAPREC_RECORDER_LEAKSCAN_DOMINATORS_H_
