// Allocation calls and temporaries per stack (hot.h).
#include "analyzers/hot.h"

namespace heaprec::analyzers {

void HotAnalyzer::OnEvents(const format::EventSpan& events, const HeapChange* changes,
                           const LiveHeap&) {
  format::ForEachEvent(
      events, [&](const format::Event& e, size_t i)
                  __attribute__((always_inline)) { One(e, changes[i]); });
}

}  // namespace heaprec::analyzers
