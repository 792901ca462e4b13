// StackTotals: a Site (bytes, count) per stack id, in a dense vector (stack
// ids are dense from 1), for the analyzers that sum per call stack, and
// SortedSites, the order every report lists sites in.
//
// The vector's memory is base::LargeBufferAllocator's: from 1 MiB on, its
// own mapping in transparent huge pages where the kernel gives them. A
// program with many stacks (cppcheck: stack ids to 133,648, 3.2 MiB a table,
// four tables, each grown 1.5x at a time) cost heapreplay 10,700 page faults
// of fresh 4 KiB pages, 60% of all its faults.
//
// Not thread-safe; memory proportional to the highest stack id seen.
#ifndef HEAPREC_ANALYZERS_STACK_TOTALS_H_
#define HEAPREC_ANALYZERS_STACK_TOTALS_H_

#include <cstdint>
#include <vector>

#include "analyzers/live_heap.h"
#include "analyzers/site.h"
#include "base/large_buffers.h"

namespace heaprec::analyzers {

class StackTotals {
 public:
  using Sites = std::vector<Site, base::LargeBufferAllocator<Site>>;

  Site& operator[](uint32_t stack) {
    if (__builtin_expect(stack >= size_, 0)) Grow(stack);
    return sites_[stack];
  }
  void Add(uint32_t stack, uint64_t bytes, uint64_t count) {
    Site& s = (*this)[stack];
    s.bytes += bytes;
    s.count += count;
  }
  void Sub(uint32_t stack, uint64_t bytes, uint64_t count) {
    Site& s = (*this)[stack];
    s.bytes -= bytes;
    s.count -= count;
  }
  // Live bytes and blocks per stack: moves what one event changed.
  __attribute__((always_inline)) void Apply(const HeapChange& c) {
    if (c.released != 0) Sub(c.released_block.stack, c.released_est.bytes, c.released_est.count);
    if (c.made != 0) Add(c.made_block.stack, c.made_est.bytes, c.made_est.count);
  }
  const Sites& all() const { return sites_; }

  // Sites with a non-zero count, ordered by `order`, largest first.
  std::vector<Site> Sorted(Metric order) const;

 private:
  // Room for stack, each new entry named by its stack.
  void Grow(uint32_t stack) {
    const size_t from = sites_.size();
    sites_.resize(stack + 1 + stack / 2);
    size_ = sites_.size();
    for (size_t i = from; i < size_; ++i) sites_[i].stack = static_cast<uint32_t>(i);
  }

  Sites sites_;
  // sites_.size(), kept: the test of every Add and Sub then costs no
  // division by the 24 bytes of a Site (mt_handoff: ~10 instructions an event).
  size_t size_ = 0;
};

// Sorts by `order` (bytes or count) largest first; ties: the other number,
// then stack id.
void SortSites(std::vector<Site>* sites, Metric order);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_STACK_TOTALS_H_
