// PageStacks: the call stacks an HTML report shows, as DATA.md's "strings",
// "frames" and "nodes" tables: each distinct frame once, and the call tree of
// all stacks (outermost frame at the top, node 0 the root), so a site is a
// node. Frames are matched by FrameKey (diff.h), so stacks of two traces of
// one program land on the same nodes where their frames match.
// StackNodes memoizes one trace's stack ids -> nodes.
// Not thread-safe; allocates; used by heapreplay only.
#ifndef HEAPREC_ANALYZERS_HTML_PAGE_STACKS_H_
#define HEAPREC_ANALYZERS_HTML_PAGE_STACKS_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyzers/symbol_table.h"

namespace heaprec::analyzers::html {

class PageStacks {
 public:
  PageStacks();

  // The node of stack id 0 (an event with no stack): one frame "[no stack]".
  int32_t NoStack();

  // The child of `parent` for frame f (added if new).
  int32_t Child(int32_t parent, const Frame& f) { return ChildAt(parent, FrameIndex(f)); }
  // The same for a frame already interned (FrameIndex).
  int32_t ChildAt(int32_t parent, int32_t frame);
  // The index of frame f in the frames table (added if new).
  int32_t FrameIndex(const Frame& f);

  size_t node_count() const { return parent_.size(); }
  int32_t parent(int32_t node) const { return parent_[size_t(node)]; }
  // The frame of a node (not the root), as interned.
  const Frame& frame(int32_t node) const { return frames_[size_t(frame_of_[size_t(node)])]; }

  // Adds "strings", "frames" and "nodes" to `page`.
  void AddTo(nlohmann::json* page) const;

 private:
  int32_t StringIndex(const std::string& s);

  std::vector<std::string> strings_;
  std::unordered_map<std::string, int32_t> string_index_;
  std::vector<Frame> frames_;
  std::unordered_map<std::string, int32_t> frame_index_;  // by FrameKey
  std::vector<int32_t> parent_, frame_of_;                // per node
  std::unordered_map<uint64_t, int32_t> child_;           // (parent, frame) -> node
};

// One trace's stack ids as nodes of a PageStacks: each node of the trace's
// stack tree is interned once (its parent's node, then the frames of its
// return address), and each return address symbolized once, so a stack costs
// only its new frames.
class StackNodes {
 public:
  StackNodes(const SymbolTable& symbols, PageStacks* stacks) : symbols_(symbols), stacks_(stacks) {}
  int32_t NodeOf(uint32_t stack);

 private:
  const SymbolTable& symbols_;
  PageStacks* stacks_;
  std::vector<int32_t> memo_;  // stack -> node + 1; 0 = not yet
  // Return address -> its frames' indices, outermost first (symbolized once).
  std::unordered_map<uint64_t, std::vector<int32_t>> frames_of_;
};

}  // namespace heaprec::analyzers::html

#endif  // HEAPREC_ANALYZERS_HTML_PAGE_STACKS_H_
