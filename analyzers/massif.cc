// Snapshots of the live heap as massif takes them (massif.h).
#include "analyzers/massif.h"

#include <algorithm>

namespace heaprec::analyzers {
namespace {

// The resident memory the heap lives in (massif.h).
uint64_t Resident(const format::RssSample& s) { return s.anon_bytes + s.unsplit_bytes; }

void SetExtra(MassifSnapshot* s, std::optional<uint64_t> resident) {
  s->extra_bytes = resident && *resident > s->bytes ? *resident - s->bytes : 0;
}

}  // namespace

MassifSnapshot MassifAnalyzer::Take(uint64_t time_ns, uint64_t order, bool detailed,
                                    bool* pending) {
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
  SetExtra(&s, resident_);
  *pending = heap_changed_since_sample_;
  any_pending_ |= *pending;
  return s;
}

void MassifAnalyzer::Settle(std::optional<uint64_t> resident) {
  if (!any_pending_) return;
  any_pending_ = false;
  for (auto r = regular_.rbegin(); r != regular_.rend() && r->pending; ++r) {
    if (resident) SetExtra(&r->snapshot, resident);
    r->pending = false;
  }
  for (auto m = markers_.rbegin(); m != markers_.rend() && m->pending; ++m) {
    if (resident) SetExtra(&m->snapshot, resident);
    m->pending = false;
  }
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

void MassifAnalyzer::TakeRegular(uint64_t time_ns, bool at, uint64_t order) {
  while (next_k_ * interval_ns_ < time_ns || (at && next_k_ * interval_ns_ == time_ns)) {
    Regular r;
    r.k = next_k_;
    r.snapshot = Take(next_k_ * interval_ns_, order, next_k_ % kDetailedEvery == 0, &r.pending);
    regular_.push_back(std::move(r));
    ++next_k_;
    if (regular_.size() > kMaxRegular) Cull();
  }
}

void MassifAnalyzer::BeforeEvent(const format::Event& e, const LiveHeap& heap) {
  live_bytes_ = heap.live_bytes();
  TakeRegular(e.time_ns, true, 2 * e.seq);
}

void MassifAnalyzer::OnEvent(const format::Event& e, const HeapChange& c, const LiveHeap& heap) {
  live_bytes_ = heap.live_bytes();
  last_time_ns_ = e.time_ns;
  last_seq_ = e.seq;
  resident_at_last_event_ = resident_;
  resident_after_last_event_.reset();
  if (c.made != 0 || c.released != 0) {
    // The snapshots of the heap before keep the latest sample before them.
    Settle(std::nullopt);
    heap_changed_since_sample_ = true;
  }
  // The heap's peak as PeakAnalyzer and RssTrack see it: the first event
  // that raised the live bytes to their highest.
  if (live_bytes_ > heap_peak_bytes_) {
    heap_peak_bytes_ = live_bytes_;
    resident_at_peak_ = resident_;  // the sample before it
    in_peak_ = after_peak_wanted_ = true;
  } else {
    in_peak_ &= live_bytes_ == heap_peak_bytes_;
  }
}

void MassifAnalyzer::OnRssSample(const format::RssSample& s, const LiveHeap& heap) {
  // The snapshots due before it show the heap as it stands (no event came
  // between them and the sample).
  live_bytes_ = heap.live_bytes();
  TakeRegular(s.time_ns, false, 2 * s.seq);
  const uint64_t r = Resident(s);
  Settle(r);  // the first sample after them, the heap unchanged
  resident_ = r;
  heap_changed_since_sample_ = false;
  if (!resident_after_last_event_) resident_after_last_event_ = r;
  if (s.unsplit_bytes != 0) {
    resident_kind_ = MassifResident::kUnsplit;
  } else if (resident_kind_ == MassifResident::kNone) {
    resident_kind_ = MassifResident::kAnonymous;
  }
  if (in_peak_ || after_peak_wanted_) {
    resident_at_peak_ = std::max(resident_at_peak_.value_or(0), r);
    after_peak_wanted_ = false;
  }
}

void MassifAnalyzer::OnMarker(const format::Marker& m) {
  // The marker comes before the event whose seq it names.
  Marked marked;
  marked.snapshot = Take(std::max(m.time_ns, last_time_ns_), 2 * m.seq, true, &marked.pending);
  marked.snapshot.why = "marker " + m.label;
  markers_.push_back(std::move(marked));
}

std::vector<MassifSnapshot> MassifAnalyzer::Snapshots() const {
  std::vector<MassifSnapshot> all;
  all.reserve(regular_.size() + markers_.size() + 2);
  for (const Regular& r : regular_) all.push_back(r.snapshot);
  for (const Marked& m : markers_) all.push_back(m.snapshot);
  if (peak_->peak_bytes() != 0) {
    MassifSnapshot p;
    p.time_ns = peak_->peak_time_ns();
    p.order = 2 * peak_->peak_seq() + 1;
    p.detailed = p.peak = true;
    p.why = "peak";
    p.sites = peak_->Sites();
    for (const Site& site : p.sites) p.bytes += site.bytes;
    SetExtra(&p, resident_at_peak_);
    all.push_back(std::move(p));
  }
  // The end: the heap after the last event, so the first sample after it,
  // else the latest before it.
  MassifSnapshot end;
  end.time_ns = last_time_ns_;
  end.order = 2 * last_seq_ + 1;
  end.detailed = true;
  end.why = "end";
  end.sites = peak_->live().Sorted(Metric::kBytes);
  for (const Site& site : end.sites) end.bytes += site.bytes;
  SetExtra(&end, resident_after_last_event_ ? resident_after_last_event_ : resident_at_last_event_);
  all.push_back(std::move(end));
  std::stable_sort(all.begin(), all.end(), [](const MassifSnapshot& a, const MassifSnapshot& b) {
    return a.time_ns != b.time_ns ? a.time_ns < b.time_ns : a.order < b.order;
  });
  return all;
}

}  // namespace heaprec::analyzers
