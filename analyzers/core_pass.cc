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

template <bool kPeak, bool kHot>
void CorePass::ApplyAndRun(const format::EventSpan& events, LiveHeap* heap, EventTally* tally) {
  constexpr size_t kPrefetch = LiveHeap::kPrefetchEvents;
  const size_t n = events.count;
  EventTally t = *tally;  // in a local: not reloaded around every store
  HeapChange c;           // every event's, in turn (Apply writes what it means)
  format::ForEachEvent(
      events, [&](const format::Event& e, size_t i) __attribute__((always_inline)) {
        if (i + kPrefetch < n) heap->Prefetch(events.block[i + kPrefetch]);
        heap->Apply(e, &c);
        t.Count(e, c);
        summary_->One(e, c);
        if constexpr (kPeak) peak_->One(e, c);
        if constexpr (kHot) hot_->One(e, c);
      });
  *tally = t;
}

void CorePass::ApplyAndTake(const format::EventSpan& events, LiveHeap* heap, EventTally* tally) {
  if (peak_ != nullptr && hot_ != nullptr) {
    ApplyAndRun<true, true>(events, heap, tally);
  } else if (peak_ != nullptr) {
    ApplyAndRun<true, false>(events, heap, tally);
  } else if (hot_ != nullptr) {
    ApplyAndRun<false, true>(events, heap, tally);
  } else {
    ApplyAndRun<false, false>(events, heap, tally);
  }
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
