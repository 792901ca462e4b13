// Analyzer: one analysis of heapreplay (leaks, peak, hot sites, ...) over the
// ordered event stream, told what each event did to the live heap. The
// Analysis driver (analysis.h) owns the one LiveHeap, applies the events and
// calls every analyzer after, so analyzers keep only their own totals.
// Testable without a reader: feed events to an Analysis.
//
// Events come in runs: OnEvents(events, changes, heap) after the heap applied
// the whole run, changes[i] being what event i did, with the live bytes and
// blocks after it (HeapChange::live_bytes, live_blocks), and `heap` as it
// stands after the last. An analyzer that keeps to that (it reads the heap
// as of an event only through changes[i], and no other analyzer's state)
// says so with EventsInBatches() and loops over the run itself: one call
// per run instead of one per event.
//
// The other way, for an analyzer that reads the heap, or another analyzer
// (massif and DHAT read PeakAnalyzer's totals), as they stand at each
// event: it overrides OnEvent (and, to see the moment just before an event,
// BeforeEvent) and leaves EventsInBatches() false. While such an analyzer is
// added, the pass goes one event at a time for every analyzer: each is
// called for an event (OnEvents with a run of one, or OnEvent) before the
// next event is applied, in the order added.
//
// An analyzer that is often the pass's only one may also take the run before
// it is applied (AppliesEvents, ApplyAndTake): it applies each event to the
// heap itself and takes the change at once, so that no array of changes is
// written and read back (CorePass, on heapreplay's most common passes).
// Called on one thread, in seq order.
#ifndef HEAPREC_ANALYZERS_ANALYZER_H_
#define HEAPREC_ANALYZERS_ANALYZER_H_

#include <cstddef>

#include "analyzers/live_heap.h"
#include "analyzers/rss.h"
#include "format/event_batch.h"
#include "format/records.h"

namespace heaprec::analyzers {

// What the pass counts of every event besides the heap and the analyzers
// (Analysis::Account): heap changes since the last leak scan, and the live
// bytes for the RSS track.
struct EventTally {
  uint64_t changes_since_scan = 0;
  RssTrack* rss = nullptr;
  __attribute__((always_inline)) void Count(const format::Event& e, const HeapChange& c) {
    if (c.made != 0 || c.released != 0) ++changes_since_scan;
    rss->OnHeap(c.live_bytes, e);
  }
};

class Analyzer {
 public:
  virtual ~Analyzer() = default;
  // A marker, before the event whose seq it names.
  virtual void OnMarker(const format::Marker&) {}
  // An RSS sample (format 3.4), before the event whose seq it names; heap
  // as it stands then.
  virtual void OnRssSample(const format::RssSample&, const LiveHeap&) {}

  // True: OnEvents is overridden and takes whole runs.
  virtual bool EventsInBatches() const { return false; }
  // A run of events after the heap applied them (see above). The default
  // hands each to OnEvent, for analyzers that go one event at a time.
  virtual void OnEvents(const format::EventSpan& events, const HeapChange* changes,
                        const LiveHeap& heap) {
    format::ForEachEvent(
        events, [&](const format::Event& e, size_t i)
                    __attribute__((always_inline)) { OnEvent(e, changes[i], heap); });
  }

  // One event at a time (EventsInBatches() false). Called before `e` is
  // applied to `heap` (the moment just before the event), for analyzers
  // whose WantsBeforeEvent() is true.
  virtual bool WantsBeforeEvent() const { return false; }
  virtual void BeforeEvent(const format::Event& e, const LiveHeap& heap) {}
  // `e` after the heap applied it; `c` is what it changed.
  virtual void OnEvent(const format::Event& e, const HeapChange& c, const LiveHeap& heap) {}

  // True: ApplyAndTake is overridden (and EventsInBatches() is true).
  virtual bool AppliesEvents() const { return false; }
  // A run of events not yet applied, for the pass's only analyzer: each
  // event in turn is applied to *heap (LiveHeap::Apply), counted in *tally
  // and taken, exactly as OnEvents would take the run's changes.
  virtual void ApplyAndTake(const format::EventSpan& events, LiveHeap* heap, EventTally* tally) {}
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_ANALYZER_H_
