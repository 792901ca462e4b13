// BuildFlameTree (flame_tree.h).
#include "analyzers/flame_tree.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace heaprec::analyzers {
namespace {

// A path and its frames' names as ranks: rank order is the names' bytewise
// order, so comparing ranks orders and groups paths as comparing the names
// would, without comparing the long, shared names again and again (that was
// a quarter of heapreplay --flamegraph on cppcheck's trace).
struct RankedPath {
  const FoldedPath* path;
  std::vector<uint32_t> ranks;
};

// paths[begin, end) share their first `depth` frames, those of `node`: adds
// their values to it and groups the rest by the frame at `depth`. Sorted by
// names frame by frame, each group is one contiguous run.
void Build(const std::vector<RankedPath>& paths, size_t begin, size_t end, size_t depth,
           FlameNode* node) {
  for (size_t i = begin; i < end; ++i) node->value += paths[i].path->value;
  size_t i = begin;
  while (i < end) {
    if (paths[i].ranks.size() == depth) {  // the path ends at node
      ++i;
      continue;
    }
    FlameNode child;
    child.frame = paths[i].path->frames[depth];
    const uint32_t rank = paths[i].ranks[depth];
    size_t j = i + 1;
    for (; j < end && paths[j].ranks.size() > depth && paths[j].ranks[depth] == rank; ++j) {
      MergeLocation(paths[j].path->frames[depth], &child.frame);
    }
    Build(paths, i, j, depth + 1, &child);
    node->children.push_back(std::move(child));
    i = j;
  }
}

}  // namespace

FlameNode BuildFlameTree(const std::vector<FoldedPath>& paths) {
  // Each distinct name once, in bytewise order: its rank.
  std::unordered_map<std::string_view, uint32_t> rank_of;
  for (const FoldedPath& p : paths) {
    for (const PathFrame& f : p.frames) rank_of.try_emplace(f.name, 0);
  }
  std::vector<std::string_view> names;
  names.reserve(rank_of.size());
  for (const auto& [name, unused] : rank_of) names.push_back(name);
  std::sort(names.begin(), names.end());
  for (size_t r = 0; r < names.size(); ++r) rank_of[names[r]] = static_cast<uint32_t>(r);

  std::vector<RankedPath> sorted;
  sorted.reserve(paths.size());
  for (const FoldedPath& p : paths) {
    RankedPath& r = sorted.emplace_back();
    r.path = &p;
    r.ranks.reserve(p.frames.size());
    for (const PathFrame& f : p.frames) r.ranks.push_back(rank_of.at(f.name));
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const RankedPath& a, const RankedPath& b) { return a.ranks < b.ranks; });
  FlameNode root;
  root.frame.name = "all";
  Build(sorted, 0, sorted.size(), 0, &root);
  return root;
}

}  // namespace heaprec::analyzers
