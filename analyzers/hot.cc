// Allocation calls and temporaries per stack (hot.h).
#include "analyzers/hot.h"

#include "analyzers/estimate.h"

namespace heaprec::analyzers {

__attribute__((always_inline)) inline void HotAnalyzer::One(const format::Event& e,
                                                            const HeapChange& c) {
  if (e.CountsAsAllocation()) {
    const Estimate est = EstimateOf(e.size, e.weight, e.block);
    allocated_.Add(e.stack, est.bytes, est.count);
  }
  if (c.temporary) {
    temporary_.Add(c.released_block.stack, c.released_est.bytes, c.released_est.count);
    temporaries_ += c.released_est.count;
  }
}

void HotAnalyzer::OnEvents(const format::EventSpan& events, const HeapChange* changes,
                           const LiveHeap&) {
  for (size_t i = 0; i < events.count; ++i) One(events.At(i), changes[i]);
}

}  // namespace heaprec::analyzers
