// Test-only: for checking that feeding events in runs (Analysis::OnEvents,
// the analyzers' OnEvents) answers exactly what feeding them one at a time
// did before issue 24 (docs/BENCHMARKS.md): random programs as records, a
// pass with every analyzer heapreplay runs, the old per-event references
// that were replaced, and a comparison of every answer.
//
// AllAnalyzers(stop, kOneAtATime) is the old path: the pass goes one event
// at a time (OldLifetimes, a per-event analyzer, is added, so Analysis steps
// event by event as it did), with two references beside the analyzers:
// OldLifetimes (LifetimeAnalyzer as it was, a hash table of births) and
// MapHeap (a std::map of live blocks, which checks every HeapChange).
// kInRuns is the new path: only batched analyzers, fed in runs, the
// summary, peak and hot sites through one CorePass as heapreplay adds them
// (the old path adds the three one by one).
// Not thread-safe; allocates.
#ifndef HEAPREC_ANALYZERS_PASS_ANSWERS_H_
#define HEAPREC_ANALYZERS_PASS_ANSWERS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "analyzers/analysis.h"
#include "analyzers/core_pass.h"
#include "analyzers/diff.h"
#include "analyzers/histogram.h"
#include "analyzers/hot.h"
#include "analyzers/lifetimes.h"
#include "analyzers/mismatches.h"
#include "analyzers/moment.h"
#include "analyzers/peak.h"
#include "analyzers/range_profile.h"
#include "analyzers/summary.h"
#include "analyzers/timeline.h"
#include "base/open_table.h"
#include "format/records.h"

namespace heaprec::analyzers::testing {

// A program's records in seq order, as a reader delivers them.
using Record = std::variant<format::Event, format::Marker, format::RssSample>;

struct ProgramOptions {
  int events = 20000;
  uint32_t stacks = 60;
  uint64_t sample_rate = 0;  // a sampled trace (weights on allocations)
  bool switches = false;     // recording stopped and started once
};

// A random program: allocations by every family (and aligned), frees of the
// right and the wrong family, sized deletes (some with the wrong size),
// reallocs moved, in place, to 0 and of NULL, failed calls, free(NULL),
// frees of blocks never made and double frees, over `stacks` call stacks;
// markers (one labelled "middle" halfway) and RSS samples between events;
// blocks numbered as a reader does.
// Deterministic for a seed.
std::vector<Record> RandomProgram(uint32_t seed, const ProgramOptions& o);

// LifetimeAnalyzer before issue 24: births in a hash table, one event at a
// time.
class OldLifetimes : public Analyzer {
 public:
  void OnEvent(const format::Event& e, const HeapChange& c, const LiveHeap& heap) override;
  const SiteLifetimes* Of(uint32_t stack) const {
    return stack < sites_.size() ? sites_[stack].get() : nullptr;
  }
  const SiteLifetimes& all() const { return all_; }

 private:
  struct Birth {
    uint64_t time_ns = 0;
    uint32_t thread = 0;
    uint32_t stack = 0;
  };
  SiteLifetimes& At(uint32_t stack);
  base::OpenTable<Birth> births_;
  std::vector<std::unique_ptr<SiteLifetimes>> sites_;
  SiteLifetimes all_;
  uint64_t last_made_ = 0;
};

// The live heap from the events alone, in a std::map: checks each
// HeapChange (blocks made and released, live bytes and blocks) as it goes
// (gtest expectations) and keeps the live blocks.
class MapHeap : public Analyzer {
 public:
  void OnMarker(const format::Marker& m) override;
  void OnEvent(const format::Event& e, const HeapChange& c, const LiveHeap& heap) override;
  // Live bytes and blocks per stack at the end.
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> LiveByStack() const;

 private:
  struct Block {
    uint64_t size = 0;
    uint32_t stack = 0;
    uint64_t bytes = 0, count = 0;  // its estimate
  };
  std::map<uint64_t, Block> live_;
  uint64_t live_bytes_ = 0, live_count_ = 0;
  bool whole_life_ = true;
};

// kCoreAlone: in runs, to an Analysis whose only analyzer is the CorePass,
// which then applies the events itself (Analyzer::ApplyAndTake).
enum class Feed { kOneAtATime, kInRuns, kCoreAlone };

// Every analyzer of a heapreplay pass, in heapreplay's order (kCoreAlone:
// the CorePass only); the live snapshots are taken at 3 s and at the marker
// "middle".
struct AllAnalyzers {
  AllAnalyzers(const Moment& stop, Feed feed);

  Analysis analysis;
  SummaryAnalyzer summary;
  PeakAnalyzer peak;
  HotAnalyzer hot;
  CorePass core{&summary, &peak, &hot};  // the new path's summary, peak and hot
  HistogramAnalyzer histogram;
  TimelineAnalyzer timeline{100};
  LifetimeAnalyzer lifetimes;
  MismatchAnalyzer mismatches;
  RangeProfile range{64};
  LiveSnapshot at_time, at_marker;
  // The old path only.
  OldLifetimes old_lifetimes;
  MapHeap map_heap;
};

// Feeds the program: one record at a time (kOneAtATime, through OnEvent),
// or events in runs of random lengths up to max_run, through OnEvents and
// OnEventBatch alternately (kInRuns). process: the trace's ProcessInfo.
void FeedProgram(const format::ProcessInfo& process, const std::vector<Record>& program, Feed feed,
                 uint32_t seed, size_t max_run, format::TraceVisitor* v);

// gtest expectations: every answer of `now` equals `old`'s (and the old
// path's references agree with the analyzers they replaced). Call after the
// pass (runs the range profiles' Finish).
void ExpectSameAnswers(AllAnalyzers* old, AllAnalyzers* now, const std::string& where);
// The part of it that a kCoreAlone pass answers: the live heap, the RSS
// track, the summary, the peak and the hot sites.
void ExpectSameCoreAnswers(const AllAnalyzers* old, const AllAnalyzers* now,
                           const std::string& where);

}  // namespace heaprec::analyzers::testing

#endif  // HEAPREC_ANALYZERS_PASS_ANSWERS_H_
