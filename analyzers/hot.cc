// Allocation calls and temporaries per stack (hot.h).
#include "analyzers/hot.h"

#include "analyzers/estimate.h"

namespace heaprec::analyzers {

void HotAnalyzer::OnEvent(const format::Event& e, const HeapChange& c, const LiveHeap& heap) {
  if (e.CountsAsAllocation()) {
    const Estimate est = EstimateOf(e.size, e.weight, e.block);
    allocated_.Add(e.stack, est.bytes, est.count);
  }
  if (temporary_watch_.Step(c)) {
    temporary_.Add(c.released_block.stack, c.released_est.bytes, c.released_est.count);
    temporaries_ += c.released_est.count;
  }
}

}  // namespace heaprec::analyzers
