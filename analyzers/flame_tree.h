// BuildFlameTree: folded paths (folded_paths.h) merged into the call tree a
// flame graph draws. The root stands for the whole profile; a node's value is
// everything allocated under its path (its own sites and its callees'), and
// its children are the distinct next frames, sorted by name as flamegraph.pl
// sorts them (left to right). Frames merged here keep a file or line only
// where all of them agree (MergeLocation).
// A pure function; allocates. Used by FlameGraphSvg.
#ifndef HEAPREC_ANALYZERS_FLAME_TREE_H_
#define HEAPREC_ANALYZERS_FLAME_TREE_H_

#include <cstdint>
#include <vector>

#include "analyzers/folded_paths.h"

namespace heaprec::analyzers {

struct FlameNode {
  PathFrame frame;  // the root's name is "all"
  uint64_t value = 0;
  std::vector<FlameNode> children;  // sorted by frame.name
};

FlameNode BuildFlameTree(const std::vector<FoldedPath>& paths);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_FLAME_TREE_H_
