// Leak sites: live blocks grouped by stack (leaks.h).
#include "analyzers/leaks.h"

#include "analyzers/estimate.h"
#include "analyzers/stack_totals.h"

namespace heaprec::analyzers {

std::vector<Site> LeakSites(const LiveHeap& heap) {
  StackTotals by_stack;
  heap.blocks().ForEach([&](uint64_t id, const LiveBlock& block) {
    const Estimate est = heap.EstimateOf(id, block);
    by_stack.Add(block.stack, est.bytes, est.count);
  });
  return by_stack.Sorted(Metric::kBytes);
}

}  // namespace heaprec::analyzers
