// The streaming pass (analysis.h).
#include "analyzers/analysis.h"

namespace heaprec::analyzers {

Analysis::Analysis(const Moment& stop_at) {
  if (stop_at.kind != Moment::Kind::kEnd) stop_.emplace(stop_at);
}

void Analysis::OnMarker(const format::Marker& m) {
  if (stopped()) return;
  if (stop_ && stop_->AtMarker(m)) return;
  markers_.push_back(m);
  for (Analyzer* a : analyzers_) a->OnMarker(m);
}

void Analysis::OnEvent(const format::Event& e) {
  if (stopped()) return;
  if (stop_ && stop_->BeforeEvent(e)) return;
  for (Analyzer* a : analyzers_) a->BeforeEvent(e, heap_);
  const HeapChange c = heap_.Apply(e);
  for (Analyzer* a : analyzers_) a->OnEvent(e, c, heap_);
}

}  // namespace heaprec::analyzers
