// StackTable: parent-linked frames (see stack_table.h).
#include "format/stack_table.h"

namespace heaprec::format {

bool StackTable::Add(const StackNode& n) {
  if (n.id != nodes_.size() || n.parent >= n.id) return false;
  nodes_.push_back({n.parent, n.address});
  return true;
}

std::vector<uint64_t> StackTable::Frames(uint32_t id) const {
  std::vector<uint64_t> frames;
  // Parents always have smaller ids, so this ends.
  while (id != 0 && id < nodes_.size()) {
    frames.push_back(nodes_[id].address);
    id = nodes_[id].parent;
  }
  return frames;
}

}  // namespace heaprec::format
