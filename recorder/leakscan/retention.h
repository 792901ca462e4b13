// Retention: which root holds each still reachable block, something memcheck
// does not say. Over the graph of nodes {super-root, one node per root id,
// every Reachable block} and edges super-root -> each root id, and root id ->
// block or block -> block for every strong pointer (start pointer or interior
// pointer a heuristic accepts) found in that root or Reachable block (edges
// to or from Possible blocks do not count), a block's retaining root is the
// root id on its dominator-tree path just below the super-root, or
// kSeveralRoots when the node there is a block (no single root dominates it).
// So the bytes retained through root R (the blocks whose retaining root is R)
// are exactly what would stop being reachable without R.
//
// Uses the pointer graph's edges (no memory is read again) and dominators.h.
// Allocates 4 bytes a block, and at the peak about 36 bytes a still
// reachable block and 12 bytes a strong edge, while it runs; not
// thread-safe.
#ifndef HEAPREC_RECORDER_LEAKSCAN_RETENTION_H_
#define HEAPREC_RECORDER_LEAKSCAN_RETENTION_H_

#include <cstdint>
#include <span>
#include <vector>

#include "recorder/leakscan/marking.h"
#include "recorder/leakscan/pointer_graph.h"
#include "recorder/leakscan/scan_types.h"

namespace heaprec::recorder::leakscan {

struct RootRetention {
  RootId root = kNoRoot;
  uint64_t bytes = 0;  // requested sizes of the blocks it alone retains
  uint64_t blocks = 0;
};

struct Retention {
  // Per block: its retaining root, kSeveralRoots, or kNoRoot (not Reachable).
  std::vector<RootId> retaining_root;
  // Every root id holding a pointer into a block, ascending, with what it
  // alone retains.
  std::vector<RootRetention> by_root;
  RootRetention several{kSeveralRoots, 0, 0};
  uint64_t strong_edges = 0;  // edges of the dominator graph
};

// reachable_order: every Reachable block once, in the order phase 1 scanned
// them as Reachable (MarkFromRoots): these are the blocks retained.
Retention ComputeRetention(const PointerGraph& graph, std::span<const LiveBlock> blocks,
                           std::span<const uint32_t> reachable_order);

}  // namespace heaprec::recorder::leakscan

#endif  // HEAPREC_RECORDER_LEAKSCAN_RETENTION_H_
