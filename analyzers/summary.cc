// SummaryAnalyzer: counts, peak, temporaries (summary.h).
#include "analyzers/summary.h"

namespace heaprec::analyzers {

void SummaryAnalyzer::OnEvents(const format::EventSpan& events, const HeapChange* changes,
                               const LiveHeap&) {
  for (size_t i = 0; i < events.count; ++i) One(events.At(i), changes[i]);
}

}  // namespace heaprec::analyzers
