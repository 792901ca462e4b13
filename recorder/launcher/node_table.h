// NodeTable: the launcher's stack tree, (parent node, return address) ->
// node, in one flat array: open addressing with linear probing, grown at
// half load, no allocation per node. The std::unordered_map it replaces made
// a heap node per stack node and took two dependent cache misses a lookup
// (bucket, then node); recording cppcheck inserts ~130,000 nodes.
// Node ids are the caller's (non-zero). Not thread-safe; header-only.
#ifndef HEAPREC_RECORDER_LAUNCHER_NODE_TABLE_H_
#define HEAPREC_RECORDER_LAUNCHER_NODE_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/large_buffers.h"

namespace heaprec::recorder::launcher {

class NodeTable {
 public:
  // The node of (parent, address); if there is none, next becomes it and
  // *inserted is set.
  uint32_t FindOrInsert(uint32_t parent, uint64_t address, uint32_t next, bool* inserted) {
    if ((used_ + 1) * 2 > slots_.size()) Grow();
    Slot& s = slots_[Find(parent, address)];
    *inserted = s.node == 0;
    if (*inserted) {
      s = {address, parent, next};
      ++used_;
    }
    return s.node;
  }
  size_t size() const { return used_; }

 private:
  struct Slot {
    uint64_t address = 0;
    uint32_t parent = 0;
    uint32_t node = 0;  // 0 = empty
  };
  size_t Find(uint32_t parent, uint64_t address) const {
    const size_t mask = slots_.size() - 1;
    size_t i = static_cast<size_t>(
                   ((address ^ (uint64_t{parent} << 40) ^ parent) * 0x9E3779B97F4A7C15ull) >> 20) &
               mask;
    while (slots_[i].node != 0 && (slots_[i].address != address || slots_[i].parent != parent)) {
      i = (i + 1) & mask;
    }
    return i;
  }
  void Grow() {
    std::vector<Slot, base::LargeBufferAllocator<Slot>> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& s : old) {
      if (s.node != 0) slots_[Find(s.parent, s.address)] = s;
    }
  }

  std::vector<Slot, base::LargeBufferAllocator<Slot>> slots_ =
      std::vector<Slot, base::LargeBufferAllocator<Slot>>(4096);
  size_t used_ = 0;
};

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_NODE_TABLE_H_
