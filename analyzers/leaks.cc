// Leak sites: live blocks grouped by stack (leaks.h).
#include "analyzers/leaks.h"

#include "analyzers/stack_totals.h"

namespace heaprec::analyzers {

std::vector<Site> LeakSites(const LiveHeap& heap) {
  StackTotals by_stack;
  heap.blocks().ForEach(
      [&](uint64_t, const LiveBlock& block) { by_stack.Add(block.stack, block.size, 1); });
  return by_stack.Sorted(Metric::kBytes);
}

}  // namespace heaprec::analyzers
