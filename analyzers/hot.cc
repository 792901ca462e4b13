// Allocation calls and temporaries per stack (hot.h).
#include "analyzers/hot.h"

namespace heaprec::analyzers {

void HotAnalyzer::OnEvents(const format::EventSpan& events, const HeapChange* changes,
                           const LiveHeap&) {
  for (size_t i = 0; i < events.count; ++i) One(events.At(i), changes[i]);
}

}  // namespace heaprec::analyzers
