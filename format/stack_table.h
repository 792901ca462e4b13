// StackTable: the trace's stack tree, for turning a stack id into frames.
//
// Feed it every StackNode (TraceVisitor::OnStackNode) and ask for a stack's
// return addresses, innermost (the caller of the allocation function) first.
// Memory is 12 bytes per node. Not thread-safe for writes; concurrent reads
// are fine once filled.
#ifndef HEAPREC_FORMAT_STACK_TABLE_H_
#define HEAPREC_FORMAT_STACK_TABLE_H_

#include <cstdint>
#include <vector>

#include "format/records.h"

namespace heaprec::format {

class StackTable {
 public:
  StackTable() { nodes_.push_back({0, 0}); }  // id 0 = no stack

  // Nodes must arrive with ids 1, 2, 3... (the reader guarantees it); a node
  // with any other id is ignored and returns false.
  bool Add(const StackNode& n);

  // Return addresses of stack id, innermost first; empty for 0 or unknown ids.
  std::vector<uint64_t> Frames(uint32_t id) const;
  uint32_t Parent(uint32_t id) const { return id < nodes_.size() ? nodes_[id].parent : 0; }
  uint64_t Address(uint32_t id) const { return id < nodes_.size() ? nodes_[id].address : 0; }
  uint32_t size() const { return static_cast<uint32_t>(nodes_.size() - 1); }

 private:
  struct Node {
    uint32_t parent;
    uint64_t address;
  };
  std::vector<Node> nodes_;
};

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_STACK_TABLE_H_
