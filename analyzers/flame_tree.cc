// BuildFlameTree (flame_tree.h).
#include "analyzers/flame_tree.h"

#include <algorithm>

namespace heaprec::analyzers {
namespace {

using PathRefs = std::vector<const FoldedPath*>;

// paths[begin, end) share their first `depth` frames, those of `node`: adds
// their values to it and groups the rest by the frame at `depth`. Sorted by
// names frame by frame, each group is one contiguous run.
void Build(const PathRefs& paths, size_t begin, size_t end, size_t depth, FlameNode* node) {
  for (size_t i = begin; i < end; ++i) node->value += paths[i]->value;
  size_t i = begin;
  while (i < end) {
    if (paths[i]->frames.size() == depth) {  // the path ends at node
      ++i;
      continue;
    }
    FlameNode child;
    child.frame = paths[i]->frames[depth];
    size_t j = i + 1;
    for (; j < end && paths[j]->frames.size() > depth &&
           paths[j]->frames[depth].name == child.frame.name;
         ++j) {
      MergeLocation(paths[j]->frames[depth], &child.frame);
    }
    Build(paths, i, j, depth + 1, &child);
    node->children.push_back(std::move(child));
    i = j;
  }
}

bool NamesLess(const FoldedPath* a, const FoldedPath* b) {
  return std::lexicographical_compare(
      a->frames.begin(), a->frames.end(), b->frames.begin(), b->frames.end(),
      [](const PathFrame& x, const PathFrame& y) { return x.name < y.name; });
}

}  // namespace

FlameNode BuildFlameTree(const std::vector<FoldedPath>& paths) {
  PathRefs sorted;
  sorted.reserve(paths.size());
  for (const FoldedPath& p : paths) sorted.push_back(&p);
  std::sort(sorted.begin(), sorted.end(), NamesLess);
  FlameNode root;
  root.frame.name = "all";
  Build(sorted, 0, sorted.size(), 0, &root);
  return root;
}

}  // namespace heaprec::analyzers
