// SummaryAnalyzer: counts, peak, temporaries (summary.h).
#include "analyzers/summary.h"

namespace heaprec::analyzers {

void SummaryAnalyzer::OnEvents(const format::EventSpan& events, const HeapChange* changes,
                               const LiveHeap&) {
  format::ForEachEvent(
      events, [&](const format::Event& e, size_t i)
                  __attribute__((always_inline)) { One(e, changes[i]); });
}

}  // namespace heaprec::analyzers
