// The streaming pass (analysis.h).
#include "analyzers/analysis.h"

namespace heaprec::analyzers {

Analysis::Analysis(const Moment& stop_at) {
  if (stop_at.kind != Moment::Kind::kEnd) stop_.emplace(stop_at);
}

std::string Analysis::CommandLine() const {
  if (!process_) return "?";
  std::string cmd;
  for (const std::string& arg : process_->args) cmd += (cmd.empty() ? "" : " ") + arg;
  return cmd.empty() ? process_->program : cmd;
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
  for (Analyzer* a : before_) a->BeforeEvent(e, heap_);
  const HeapChange c = heap_.Apply(e);
  for (Analyzer* a : analyzers_) a->OnEvent(e, c, heap_);
}

}  // namespace heaprec::analyzers
