// Allocation calls and temporaries per stack (hot.h).
#include "analyzers/hot.h"

#include "analyzers/summary.h"

namespace heaprec::analyzers {

void HotAnalyzer::OnEvent(const format::Event& e, const HeapChange& c, const LiveHeap& heap) {
  if (IsNewAllocation(e, c)) {
    allocated_.Add(e.stack, e.size, 1);
    last_allocated_ = c.made;
    return;
  }
  if (e.kind() != format::EventKind::kFree || e.IsNullFree()) return;
  if (IsTemporaryFree(c, last_allocated_)) {
    temporary_.Add(c.released_block.stack, c.released_block.size, 1);
    ++temporaries_;
  }
  last_allocated_ = 0;
}

}  // namespace heaprec::analyzers
