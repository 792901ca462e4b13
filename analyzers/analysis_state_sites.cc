// The peak's and the hot sites' part of a pass's state as bytes
// (analysis_state.h).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "analyzers/analysis_state.h"
#include "analyzers/site.h"
#include "analyzers/stack_totals.h"

namespace heaprec::analyzers {
namespace {

// Per-stack totals, sparse: the number of sites that site_at(i) gives for
// i in [0, n) (a std::optional<Site>), then each as the gap from the stack
// after the one before, its bytes and its count.
template <typename F>
void PutSites(size_t n, F&& site_at, format::StateWriter* w) {
  uint64_t count = 0;
  for (size_t i = 0; i < n; ++i) count += site_at(i).has_value();
  w->U(count);
  uint64_t next = 0;
  for (size_t i = 0; i < n; ++i) {
    const std::optional<Site> s = site_at(i);
    if (!s) continue;
    w->U(i - next);
    next = i + 1;
    w->U(s->bytes);
    w->U(s->count);
  }
}

// Calls f(stack, bytes, count) for each site PutSites wrote; false if the
// bytes are not that.
template <typename F>
bool GetSites(format::StateReader* r, F&& f) {
  const uint64_t n = r->Count(3);
  uint64_t next = 0;
  for (uint64_t i = 0; i < n && r->ok(); ++i) {
    const uint64_t gap = r->U();
    const uint64_t bytes = r->U(), count = r->U();
    if (!r->ok() || gap > UINT32_MAX - next) return false;  // stack ids are 32 bits
    const uint32_t stack = static_cast<uint32_t>(next + gap);
    next = uint64_t{stack} + 1;
    f(stack, bytes, count);
  }
  return r->ok();
}

Site SiteAt(const StackTotals::Sites& sites, size_t i) {
  return i < sites.size() ? sites[i] : Site{};
}

bool Differ(const Site& x, const Site& y) { return x.bytes != y.bytes || x.count != y.count; }

void Set(StackTotals* t, uint32_t stack, uint64_t bytes, uint64_t count) {
  Site& s = (*t)[stack];
  s.bytes = bytes;
  s.count = count;
}

void PutTotals(const StackTotals& t, format::StateWriter* w) {
  const StackTotals::Sites& all = t.all();
  PutSites(
      all.size(),
      [&](size_t i) -> std::optional<Site> {
        if (all[i].bytes == 0 && all[i].count == 0) return std::nullopt;
        return all[i];
      },
      w);
}

bool GetTotals(format::StateReader* r, StackTotals* t) {
  return GetSites(
      r, [t](uint32_t stack, uint64_t bytes, uint64_t count) { Set(t, stack, bytes, count); });
}

}  // namespace

// The peak: its moment, what each stack holds now, and what each stack held
// at the peak where that differs from now (only stacks changed since the
// peak can differ: they are the ones the next peak copies; the order in
// which they were touched changes nothing).
void AnalysisState::SavePeak(const PeakAnalyzer& p, format::StateWriter* w) {
  w->U(p.peak_bytes_);
  w->U(p.peak_blocks_);
  w->U(p.peak_time_ns_);
  w->U(p.peak_seq_);
  PutTotals(p.live_, w);
  const StackTotals::Sites& live = p.live_.all();
  const StackTotals::Sites& at = p.at_peak_.all();
  PutSites(
      std::max(live.size(), at.size()),
      [&](size_t i) -> std::optional<Site> {
        const Site s = SiteAt(at, i);
        if (!Differ(s, SiteAt(live, i))) return std::nullopt;
        return s;
      },
      w);
}

bool AnalysisState::RestorePeak(format::StateReader* r, PeakAnalyzer* p) {
  p->peak_bytes_ = r->U();
  p->peak_blocks_ = r->U();
  p->peak_time_ns_ = r->U();
  p->peak_seq_ = r->U();
  if (!GetSites(r, [p](uint32_t stack, uint64_t bytes, uint64_t count) {
        Set(&p->live_, stack, bytes, count);
        Set(&p->at_peak_, stack, bytes, count);
      })) {
    return false;
  }
  return GetSites(r, [p](uint32_t stack, uint64_t bytes, uint64_t count) {
    Set(&p->at_peak_, stack, bytes, count);
    p->Touch(stack);
  });
}

// Hot sites and temporaries: the two tables, the count and the watch.
void AnalysisState::SaveHot(const HotAnalyzer& h, const TemporaryWatch& watch,
                            format::StateWriter* w) {
  PutTotals(h.allocated_, w);
  PutTotals(h.temporary_, w);
  w->U(h.temporaries_);
  SaveWatch(watch, w);
}

bool AnalysisState::RestoreHot(format::StateReader* r, HotAnalyzer* h) {
  if (!GetTotals(r, &h->allocated_) || !GetTotals(r, &h->temporary_)) return false;
  h->temporaries_ = r->U();
  TemporaryWatch same;  // the heap's, restored with the summary (AnalysisState::Restore)
  RestoreWatch(r, &same);
  return r->ok();
}

uint64_t AnalysisState::SitesEstimate(const PeakAnalyzer& peak, const HotAnalyzer& hot) {
  // Two tables each, at most; about 8 bytes a site.
  return 16 * (peak.live_.all().size() + hot.allocated_.all().size() + hot.temporary_.all().size());
}

}  // namespace heaprec::analyzers
