// Snapshots of the live heap as massif takes them (massif.h).
#include "analyzers/massif.h"

#include <algorithm>

namespace heaprec::analyzers {

MassifSnapshot MassifAnalyzer::Take(uint64_t time_ns, uint64_t order, bool detailed) const {
  MassifSnapshot s;
  s.time_ns = time_ns;
  s.order = order;
  s.bytes = live_bytes_;
  s.detailed = detailed;
  if (detailed) {
    s.sites = peak_->live().Sorted(Metric::kBytes);
    // The tree's total is the sum of its sites (equal to the live bytes;
    // ms_print rejects a node larger than its snapshot).
    s.bytes = 0;
    for (const Site& site : s.sites) s.bytes += site.bytes;
  }
  return s;
}

void MassifAnalyzer::Cull() {
  // Keep the even multiples of the interval and double it: what is left is
  // still evenly spaced, and a snapshot detailed now was detailed before.
  std::vector<Regular> kept;
  kept.reserve(regular_.size() / 2 + 1);
  for (Regular& r : regular_) {
    if (r.k % 2 != 0) continue;
    r.k /= 2;
    if (r.k % kDetailedEvery != 0) {
      r.snapshot.detailed = false;
      r.snapshot.sites.clear();
      r.snapshot.sites.shrink_to_fit();
    }
    kept.push_back(std::move(r));
  }
  regular_ = std::move(kept);
  interval_ns_ *= 2;
  next_k_ = (next_k_ + 1) / 2;
}

void MassifAnalyzer::BeforeEvent(const format::Event& e, const LiveHeap& heap) {
  live_bytes_ = heap.live_bytes();
  while (next_k_ * interval_ns_ <= e.time_ns) {
    regular_.push_back(
        {next_k_, Take(next_k_ * interval_ns_, 2 * e.seq, next_k_ % kDetailedEvery == 0)});
    ++next_k_;
    if (regular_.size() > kMaxRegular) Cull();
  }
}

void MassifAnalyzer::OnEvent(const format::Event& e, const HeapChange&, const LiveHeap& heap) {
  live_bytes_ = heap.live_bytes();
  last_time_ns_ = e.time_ns;
  last_seq_ = e.seq;
}

void MassifAnalyzer::OnMarker(const format::Marker& m) {
  // The marker comes before the event whose seq it names.
  MassifSnapshot s = Take(std::max(m.time_ns, last_time_ns_), 2 * m.seq, true);
  s.why = "marker " + m.label;
  markers_.push_back(std::move(s));
}

std::vector<MassifSnapshot> MassifAnalyzer::Snapshots() const {
  std::vector<MassifSnapshot> all;
  all.reserve(regular_.size() + markers_.size() + 2);
  for (const Regular& r : regular_) all.push_back(r.snapshot);
  all.insert(all.end(), markers_.begin(), markers_.end());
  if (peak_->peak_bytes() != 0) {
    MassifSnapshot p;
    p.time_ns = peak_->peak_time_ns();
    p.order = 2 * peak_->peak_seq() + 1;
    p.detailed = p.peak = true;
    p.why = "peak";
    p.sites = peak_->Sites();
    for (const Site& site : p.sites) p.bytes += site.bytes;
    all.push_back(std::move(p));
  }
  MassifSnapshot end = Take(last_time_ns_, 2 * last_seq_ + 1, true);
  end.why = "end";
  all.push_back(std::move(end));
  std::stable_sort(all.begin(), all.end(), [](const MassifSnapshot& a, const MassifSnapshot& b) {
    return a.time_ns != b.time_ns ? a.time_ns < b.time_ns : a.order < b.order;
  });
  return all;
}

}  // namespace heaprec::analyzers
