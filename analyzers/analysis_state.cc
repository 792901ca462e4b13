// A pass's state as bytes (analysis_state.h).
#include "analyzers/analysis_state.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

namespace heaprec::analyzers {
namespace {

void PutOptional(const std::optional<uint64_t>& v, format::StateWriter* w) {
  w->U(v ? 1 : 0);
  if (v) w->U(*v);
}

std::optional<uint64_t> GetOptional(format::StateReader* r) {
  if (r->U() == 0) return std::nullopt;
  return r->U();
}

void PutSample(const format::RssSample& s, format::StateWriter* w) {
  w->U(s.seq);
  w->U(s.time_ns);
  w->U(s.anon_bytes);
  w->U(s.file_bytes);
  w->U(s.shmem_bytes);
  w->U(s.unsplit_bytes);
}

format::RssSample GetSample(format::StateReader* r) {
  format::RssSample s;
  s.seq = r->U();
  s.time_ns = r->U();
  s.anon_bytes = r->U();
  s.file_bytes = r->U();
  s.shmem_bytes = r->U();
  s.unsplit_bytes = r->U();
  return s;
}

}  // namespace

void AnalysisState::SaveWatch(const TemporaryWatch& t, format::StateWriter* w) {
  w->U(t.have_last_ ? 1 : 0);
  w->U(t.last_stack_);
  w->U(t.last_size_);
}

void AnalysisState::RestoreWatch(format::StateReader* r, TemporaryWatch* t) {
  t->have_last_ = r->U() != 0;
  t->last_stack_ = static_cast<uint32_t>(r->U());
  t->last_size_ = r->U();
}

void AnalysisState::Save(const Analysis& a, const SummaryAnalyzer& s, const PeakAnalyzer& peak,
                         const HotAnalyzer& hot, format::StateWriter* w) {
  const LiveHeap& h = a.heap_;
  w->U(h.sample_rate_);
  w->U(h.live_bytes_);
  w->U(h.live_count_);
  w->U(h.unknown_frees_);
  w->U(h.freed_before_recording_);
  w->U(h.whole_life_ ? 1 : 0);
  // Live blocks by number, as deltas.
  std::vector<std::pair<uint64_t, LiveBlock>> blocks;
  blocks.reserve(h.blocks_.size());
  h.blocks_.ForEach([&](uint64_t id, const LiveBlock& b) { blocks.emplace_back(id, b); });
  std::sort(blocks.begin(), blocks.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  w->U(blocks.size());
  uint64_t last = 0;
  for (const auto& [id, b] : blocks) {
    w->U(id - last);
    last = id;
    w->U(b.size);
    w->U(b.stack);
    w->U(static_cast<uint64_t>(b.api));
  }

  w->U(a.changes_since_scan_);

  const RssTrack& t = a.rss_;
  w->U(t.points_.size());
  for (const RssPoint& p : t.points_) {
    PutSample(p.sample, w);
    w->U(p.live_bytes);
  }
  w->U(t.count_);
  w->U(t.first_time_ns_);
  w->U(t.last_time_ns_);
  w->U(t.peak_rss_);
  w->U(t.peak_rss_time_ns_);
  PutOptional(t.last_total_, w);
  w->U(t.heap_peak_bytes_);
  PutOptional(t.at_peak_, w);
  w->U(t.after_peak_wanted_ ? 1 : 0);
  w->U(t.in_peak_ ? 1 : 0);

  w->U(s.allocations_);
  w->U(s.frees_);
  w->U(s.bytes_allocated_);
  w->U(s.events_);
  w->U(s.peak_bytes_);
  w->U(s.peak_time_ns_);
  w->U(s.peak_seq_);
  w->U(s.temporaries_);
  w->U(s.last_time_ns_);
  // The heap's one watch stands where the summary's was, and the hot
  // sites' (SaveHot): the summary and hot sites each kept one, stepped
  // through the same events, until the heap took it over (the same bytes).
  SaveWatch(h.temporary_watch_, w);

  SavePeak(peak, w);
  SaveHot(hot, h.temporary_watch_, w);
}

bool AnalysisState::Restore(format::StateReader* r, Analysis* a, SummaryAnalyzer* s,
                            PeakAnalyzer* peak, HotAnalyzer* hot) {
  LiveHeap& h = a->heap_;
  h.sample_rate_ = r->U();
  h.live_bytes_ = r->U();
  h.live_count_ = r->U();
  h.unknown_frees_ = r->U();
  h.freed_before_recording_ = r->U();
  h.whole_life_ = r->U() != 0;
  const uint64_t n = r->Count(4);
  uint64_t id = 0;
  for (uint64_t i = 0; i < n && r->ok(); ++i) {
    const uint64_t delta = r->U();
    if (delta == 0 && r->ok()) return false;  // numbers increase
    id += delta;
    LiveBlock b;
    b.size = r->U();
    b.stack = static_cast<uint32_t>(r->U());
    b.api = static_cast<format::Api>(r->U());
    LiveBlock old;
    h.blocks_.Put(id, b, &old);
  }

  a->resumed_changes_since_scan_ = r->U();

  RssTrack& t = a->rss_;
  t.points_.resize(r->Count(7));
  for (RssPoint& p : t.points_) {
    p.sample = GetSample(r);
    p.live_bytes = r->U();
  }
  t.count_ = r->U();
  t.first_time_ns_ = r->U();
  t.last_time_ns_ = r->U();
  t.peak_rss_ = r->U();
  t.peak_rss_time_ns_ = r->U();
  t.last_total_ = GetOptional(r);
  t.heap_peak_bytes_ = r->U();
  t.at_peak_ = GetOptional(r);
  t.after_peak_wanted_ = r->U() != 0;
  t.in_peak_ = r->U() != 0;

  s->allocations_ = r->U();
  s->frees_ = r->U();
  s->bytes_allocated_ = r->U();
  s->events_ = r->U();
  s->peak_bytes_ = r->U();
  s->peak_time_ns_ = r->U();
  s->peak_seq_ = r->U();
  s->temporaries_ = r->U();
  s->last_time_ns_ = r->U();
  RestoreWatch(r, &h.temporary_watch_);

  PeakAnalyzer unused_peak;
  HotAnalyzer unused_hot;
  return RestorePeak(r, peak != nullptr ? peak : &unused_peak) &&
         RestoreHot(r, hot != nullptr ? hot : &unused_hot) && r->ok() && r->at_end();
}

}  // namespace heaprec::analyzers
