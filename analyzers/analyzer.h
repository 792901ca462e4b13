// Analyzer: one analysis of heapreplay (leaks, peak, hot sites, ...) as a
// visitor of the ordered event stream, told what each event did to the live
// heap. The Analysis driver (analysis.h) owns the one LiveHeap and calls
// every analyzer after applying an event, so analyzers keep only their own
// totals. Testable without a reader: feed events to an Analysis.
// Called on one thread, in seq order.
#ifndef HEAPREC_ANALYZERS_ANALYZER_H_
#define HEAPREC_ANALYZERS_ANALYZER_H_

#include "analyzers/live_heap.h"
#include "format/records.h"

namespace heaprec::analyzers {

class Analyzer {
 public:
  virtual ~Analyzer() = default;
  // A marker, before the event whose seq it names.
  virtual void OnMarker(const format::Marker&) {}
  // An RSS sample (format 3.4), before the event whose seq it names; heap
  // as it stands then.
  virtual void OnRssSample(const format::RssSample&, const LiveHeap&) {}
  // Called before `e` is applied to `heap` (the moment just before the
  // event), for analyzers whose WantsBeforeEvent() is true.
  virtual bool WantsBeforeEvent() const { return false; }
  virtual void BeforeEvent(const format::Event& e, const LiveHeap& heap) {}
  // `e` after the heap applied it; `c` is what it changed.
  virtual void OnEvent(const format::Event& e, const HeapChange& c, const LiveHeap& heap) = 0;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_ANALYZER_H_
