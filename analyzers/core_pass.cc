// The summary, peak and hot sites in one loop (core_pass.h).
#include "analyzers/core_pass.h"

namespace heaprec::analyzers {

template <bool kPeak, bool kHot>
void CorePass::Run(const format::EventSpan& events, const HeapChange* changes) {
  format::ForEachEvent(
      events, [&](const format::Event& e, size_t i) __attribute__((always_inline)) {
        const HeapChange& c = changes[i];
        summary_->One(e, c);
        if constexpr (kPeak) peak_->One(e, c);
        if constexpr (kHot) hot_->One(e, c);
      });
}

void CorePass::OnEvents(const format::EventSpan& events, const HeapChange* changes,
                        const LiveHeap&) {
  if (peak_ != nullptr && hot_ != nullptr) {
    Run<true, true>(events, changes);
  } else if (peak_ != nullptr) {
    Run<true, false>(events, changes);
  } else if (hot_ != nullptr) {
    Run<false, true>(events, changes);
  } else {
    Run<false, false>(events, changes);
  }
}

}  // namespace heaprec::analyzers
