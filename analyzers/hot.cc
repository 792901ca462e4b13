// Allocation calls and temporaries per stack (hot.h).
#include "analyzers/hot.h"

namespace heaprec::analyzers {

void HotAnalyzer::OnEvent(const format::Event& e, const HeapChange& c, const LiveHeap& heap) {
  if (e.CountsAsAllocation()) allocated_.Add(e.stack, e.size, 1);
  if (temporary_watch_.Step(c)) {
    temporary_.Add(c.released_block.stack, c.released_block.size, 1);
    ++temporaries_;
  }
}

}  // namespace heaprec::analyzers
