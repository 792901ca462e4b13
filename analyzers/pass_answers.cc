// Old and new passes over random programs, and their answers compared
// (pass_answers.h).
#include "analyzers/pass_answers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "analyzers/estimate.h"
#include "analyzers/leaks.h"
#include "format/block_numbers.h"
#include "format/event_batch.h"
#include "format/sampling.h"
#include "format/switch_markers.h"

namespace heaprec::analyzers::testing {
namespace {

using format::Api;
using format::Event;

// The call that allocates and the one that frees, by family.
struct Family {
  Api alloc, free;
};
constexpr Family kFamilies[] = {
    {Api::kMalloc, Api::kFree},        {Api::kCalloc, Api::kFree},
    {Api::kNew, Api::kDelete},         {Api::kNewArray, Api::kDeleteArray},
    {Api::kPosixMemalign, Api::kFree}, {Api::kNewAligned, Api::kDeleteAligned},
};

}  // namespace

std::vector<Record> RandomProgram(uint32_t seed, const ProgramOptions& o) {
  std::mt19937_64 rng(seed);
  std::vector<Record> out;
  format::BlockNumbers numbers;
  struct Live {
    uint64_t address, size;
    Family family;
  };
  std::vector<Live> live;
  std::vector<uint64_t> freed;  // addresses released (double frees name them)
  uint64_t next_address = 0x10000, seq = 0, time = 0;
  bool paused = false;
  auto emit = [&](Event e) {
    e.seq = ++seq;
    time += rng() % 3 == 0 ? 1000000 : 0;  // heaprec's millisecond times: many equal
    e.time_ns = time;
    e.thread = 1 + static_cast<uint32_t>(rng() % 3);
    if (e.stack == 0 && e.kind() != format::EventKind::kFree) {
      e.stack = 1 + static_cast<uint32_t>(rng() % o.stacks);
    }
    numbers.Assign(&e);
    // As a reader delivers them: addresses only for blocks never made.
    if (e.kind() != format::EventKind::kFree || e.block != 0) e.address = 0;
    if (e.old_block != 0) e.old_address = 0;
    if (o.sample_rate != 0 && e.CountsAsAllocation()) {
      e.weight = format::SampleWeight(e.size, o.sample_rate);
    }
    out.push_back(e);
  };
  for (int i = 0; i < o.events; ++i) {
    if (i == o.events / 2) out.push_back(format::Marker{seq + 1, time, 2, "middle"});
    const uint64_t what = rng() % 100;
    if (what < 2) {
      format::Marker m{seq + 1, time, 1, "m" + std::to_string(i)};
      if (o.switches && i > o.events / 3 && i < o.events / 2 && !paused && what == 0) {
        m.label = format::kRecordingStopLabel;
        paused = true;
      } else if (paused && i >= o.events / 2) {
        m.label = format::kRecordingStartLabel;
        paused = false;
      }
      if (format::IsRecordingSwitch(m.label)) {
        numbers.RecordingSwitched(m.label == format::kRecordingStopLabel);
      }
      out.push_back(m);
      continue;
    }
    if (what < 3) {
      out.push_back(format::RssSample{seq + 1, time, (rng() % 1000) << 12, 4096, 0});
      continue;
    }
    const uint64_t size = rng() % 8 == 0 ? 0 : 1 + rng() % (rng() % 4 == 0 ? 100000 : 200);
    if (live.empty() || what < 50) {  // an allocation (while paused: a block the trace misses)
      const Family f = kFamilies[rng() % std::size(kFamilies)];
      const bool failed = rng() % 50 == 0;
      const uint64_t a = failed ? 0 : (next_address += 0x40);
      if (!paused) {
        Event e{.api = f.alloc, .address = a, .size = size};
        if (format::HasAlignment(f.alloc)) e.alignment = 64;
        emit(e);
      }
      if (!failed) live.push_back({a, size, f});
      continue;
    }
    const size_t k = rng() % live.size();
    const Live b = live[k];
    if (what < 80) {  // a free, of the right family mostly
      Api api = rng() % 20 == 0 ? kFamilies[rng() % std::size(kFamilies)].free : b.family.free;
      uint64_t named = 0;
      if (api == Api::kDelete && rng() % 3 == 0) {
        api = Api::kDeleteSized;
        named = rng() % 10 == 0 ? b.size + 1 : b.size;
      }
      emit({.api = api, .address = b.address, .size = named});
      freed.push_back(b.address);
      live.erase(live.begin() + static_cast<long>(k));
    } else if (what < 88) {  // realloc: moved, in place, to 0, failed
      const uint64_t r = rng() % 10;
      if (r < 5) {
        const uint64_t a = next_address += 0x40;
        emit({.api = Api::kRealloc, .address = a, .size = size + 1, .old_address = b.address});
        freed.push_back(b.address);
        live[k] = {a, size + 1, kFamilies[0]};
      } else if (r < 8) {
        emit({.api = Api::kRealloc,
              .address = b.address,
              .size = size + 1,
              .old_address = b.address});
        live[k] = {b.address, size + 1, kFamilies[0]};
      } else if (r < 9) {
        emit({.api = Api::kRealloc, .address = 0, .size = 0, .old_address = b.address});
        freed.push_back(b.address);
        live.erase(live.begin() + static_cast<long>(k));
      } else {
        emit({.api = Api::kRealloc, .address = 0, .size = size + 1, .old_address = b.address});
      }
    } else if (what < 92) {  // realloc(NULL, n)
      const uint64_t a = next_address += 0x40;
      emit({.api = Api::kRealloc, .address = a, .size = size + 1});
      live.push_back({a, size + 1, kFamilies[0]});
    } else if (what < 94) {
      emit({.api = Api::kFree});  // free(NULL)
    } else if (what < 97) {       // a block never made
      emit({.api = Api::kFree, .address = 0xdead0000 + (rng() % 64) * 16});
    } else if (!freed.empty()) {  // a double free
      emit({.api = Api::kFree, .address = freed[rng() % freed.size()]});
    }
  }
  return out;
}

SiteLifetimes& OldLifetimes::At(uint32_t stack) {
  if (stack >= sites_.size()) sites_.resize(stack + 1);
  if (sites_[stack] == nullptr) sites_[stack] = std::make_unique<SiteLifetimes>();
  return *sites_[stack];
}

void OldLifetimes::OnEvent(const format::Event& e, const HeapChange& c, const LiveHeap&) {
  if (c.released != 0) {
    Birth b;
    if (births_.Take(c.released, &b)) {
      SiteLifetimes& s = At(b.stack);
      const uint64_t time = e.time_ns > b.time_ns ? e.time_ns - b.time_ns : 0;
      const uint64_t between = last_made_ > c.released ? last_made_ - c.released : 0;
      const bool other = e.thread != b.thread;
      for (SiteLifetimes* t : {&s, &all_}) {
        t->time_ns.Add(time);
        t->allocations_between.Add(between);
        t->freed_by_other_thread += other;
        --t->live_at_end;
      }
    }
  }
  if (c.made != 0) {
    Birth b{e.time_ns, e.thread, c.made_block.stack}, old;
    births_.Put(c.made, b, &old);
    if (c.made > last_made_) last_made_ = c.made;
    ++At(b.stack).live_at_end;
    ++all_.live_at_end;
  }
}

void MapHeap::OnMarker(const format::Marker& m) {
  if (format::IsRecordingSwitch(m.label)) whole_life_ = false;
}

void MapHeap::OnEvent(const format::Event& e, const HeapChange& c, const LiveHeap& heap) {
  const uint64_t rate = heap.sample_rate();
  uint64_t released = 0, made = 0;
  bool unknown = false, before = false;
  auto release = [&](uint64_t block) {
    if (block == 0 && !whole_life_) {
      before = true;
      return;
    }
    const auto it = live_.find(block);
    if (block == 0 || it == live_.end()) {
      unknown = true;
      return;
    }
    EXPECT_EQ(c.released_block.size, it->second.size) << e.seq;
    EXPECT_EQ(c.released_block.stack, it->second.stack) << e.seq;
    EXPECT_EQ(c.released_est.bytes, it->second.bytes) << e.seq;
    EXPECT_EQ(c.released_est.count, it->second.count) << e.seq;
    live_bytes_ -= it->second.bytes;
    live_count_ -= it->second.count;
    live_.erase(it);
    released = block;
  };
  auto make = [&]() {
    const Estimate est = EstimateOf(e.size, e.weight, e.block);
    if (rate != 0) {  // what the block is worth when released
      EXPECT_EQ(est.bytes, EstimateOf(e.size, format::SampleWeight(e.size, rate), e.block).bytes);
    }
    live_[e.block] = {e.size, e.stack, est.bytes, est.count};
    live_bytes_ += est.bytes;
    live_count_ += est.count;
    made = e.block;
    EXPECT_EQ(c.made_block.size, e.size) << e.seq;
    EXPECT_EQ(c.made_block.stack, e.stack) << e.seq;
    EXPECT_EQ(c.made_est.bytes, est.bytes) << e.seq;
    EXPECT_EQ(c.made_est.count, est.count) << e.seq;
  };
  switch (e.kind()) {
    case format::EventKind::kAlloc:
      if (e.block != 0) make();
      break;
    case format::EventKind::kFree:
      if (!e.IsNullFree()) release(e.block);
      break;
    case format::EventKind::kRealloc:
      if (e.IsFailedRealloc()) break;
      if (e.HasOldBlock()) release(e.old_block);
      if (e.block != 0) make();
      break;
    case format::EventKind::kInvalid:
      break;
  }
  EXPECT_EQ(c.released, released) << e.seq;
  EXPECT_EQ(c.made, made) << e.seq;
  EXPECT_EQ(c.unknown_release, unknown) << e.seq;
  EXPECT_EQ(c.before_recording, before) << e.seq;
  EXPECT_EQ(c.live_bytes, live_bytes_) << e.seq;
  EXPECT_EQ(c.live_blocks, rate == 0 ? live_.size() : live_count_) << e.seq;
  EXPECT_EQ(heap.live_bytes(), live_bytes_) << e.seq;
}

std::map<uint32_t, std::pair<uint64_t, uint64_t>> MapHeap::LiveByStack() const {
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> out;
  for (const auto& [block, b] : live_) {
    out[b.stack].first += b.bytes;
    out[b.stack].second += b.count;
  }
  return out;
}

namespace {

Moment TimeMoment(uint64_t ns) {
  Moment m;
  m.kind = Moment::Kind::kTime;
  m.time_ns = ns;
  m.text = std::to_string(ns) + "ns";
  return m;
}

Moment LabelMoment(const std::string& label) {
  Moment m;
  m.kind = Moment::Kind::kLabel;
  m.label = m.text = label;
  return m;
}

}  // namespace

AllAnalyzers::AllAnalyzers(const Moment& stop, Feed feed)
    : analysis(stop), at_time(TimeMoment(3000000000)), at_marker(LabelMoment("middle")) {
  if (feed == Feed::kOneAtATime) {
    for (Analyzer* a : std::initializer_list<Analyzer*>{&summary, &peak, &hot}) analysis.Add(a);
  } else {
    analysis.Add(&core);
  }
  if (feed == Feed::kCoreAlone) return;
  for (Analyzer* a : std::initializer_list<Analyzer*>{&histogram, &timeline, &lifetimes,
                                                      &mismatches, &range, &at_time, &at_marker}) {
    analysis.Add(a);
  }
  if (feed == Feed::kOneAtATime) {
    analysis.Add(&old_lifetimes);
    analysis.Add(&map_heap);
  }
}

void FeedProgram(const format::ProcessInfo& process, const std::vector<Record>& program, Feed feed,
                 uint32_t seed, size_t max_run, format::TraceVisitor* v) {
  v->OnProcess(process);
  std::mt19937 rng(seed);
  format::EventBatch run;
  bool whole = false;  // the next run goes by OnEventBatch
  auto flush = [&]() {
    if (run.count() == 0) return;
    if (whole) {
      v->OnEventBatch(&run);
    } else {
      v->OnEvents(run.Span());
    }
    whole = !whole;
    run.Clear();
  };
  size_t want = 1 + rng() % max_run;
  for (const Record& r : program) {
    if (const auto* e = std::get_if<format::Event>(&r)) {
      if (feed == Feed::kOneAtATime) {
        v->OnEvent(*e);
        continue;
      }
      run.Append(*e);
      if (run.count() >= want) {
        flush();
        want = 1 + rng() % max_run;
      }
      continue;
    }
    flush();
    if (const auto* m = std::get_if<format::Marker>(&r)) v->OnMarker(*m);
    if (const auto* s = std::get_if<format::RssSample>(&r)) v->OnRssSample(*s);
  }
  flush();
}

namespace {

void ExpectSameLifetimes(const SiteLifetimes* a, const SiteLifetimes* b, const std::string& where) {
  ASSERT_EQ(a == nullptr, b == nullptr) << where;
  if (a == nullptr) return;
  EXPECT_EQ(a->time_ns.counts, b->time_ns.counts) << where;
  EXPECT_EQ(a->time_ns.total, b->time_ns.total) << where;
  EXPECT_TRUE(a->time_ns.sum == b->time_ns.sum) << where;
  EXPECT_EQ(a->allocations_between.counts, b->allocations_between.counts) << where;
  EXPECT_TRUE(a->allocations_between.sum == b->allocations_between.sum) << where;
  EXPECT_EQ(a->freed_by_other_thread, b->freed_by_other_thread) << where;
  EXPECT_EQ(a->live_at_end, b->live_at_end) << where;
}

void ExpectSameMismatches(const std::vector<Mismatch>& a, const std::vector<Mismatch>& b,
                          const std::string& where) {
  ASSERT_EQ(a.size(), b.size()) << where;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].kind, b[i].kind) << where << " " << i;
    EXPECT_EQ(a[i].alloc_api, b[i].alloc_api) << where << " " << i;
    EXPECT_EQ(a[i].free_api, b[i].free_api) << where << " " << i;
    EXPECT_EQ(a[i].alloc_stack, b[i].alloc_stack) << where << " " << i;
    EXPECT_EQ(a[i].free_stack, b[i].free_stack) << where << " " << i;
    EXPECT_EQ(a[i].first_free_stack, b[i].first_free_stack) << where << " " << i;
    EXPECT_EQ(a[i].count, b[i].count) << where << " " << i;
    EXPECT_EQ(a[i].bytes, b[i].bytes) << where << " " << i;
    EXPECT_EQ(a[i].freed_size, b[i].freed_size) << where << " " << i;
    EXPECT_EQ(a[i].address, b[i].address) << where << " " << i;
    EXPECT_EQ(a[i].first_seq, b[i].first_seq) << where << " " << i;
  }
}

}  // namespace

void ExpectSameCoreAnswers(const AllAnalyzers* old, const AllAnalyzers* now,
                           const std::string& where) {
  const Analysis& a = old->analysis;
  const Analysis& b = now->analysis;
  // The live heap: leaks, and what the map of the events says.
  EXPECT_EQ(a.stopped(), b.stopped()) << where;
  EXPECT_EQ(a.heap().live_bytes(), b.heap().live_bytes()) << where;
  EXPECT_EQ(a.heap().live_blocks(), b.heap().live_blocks()) << where;
  EXPECT_EQ(a.heap().unknown_frees(), b.heap().unknown_frees()) << where;
  EXPECT_EQ(a.heap().freed_before_recording(), b.heap().freed_before_recording()) << where;
  EXPECT_EQ(a.heap().RecordedWholeLife(), b.heap().RecordedWholeLife()) << where;
  const std::vector<Site> leaks = LeakSites(b.heap());
  EXPECT_EQ(LeakSites(a.heap()), leaks) << where;
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> leaked;
  for (const Site& s : leaks) leaked[s.stack] = {s.bytes, s.count};
  EXPECT_EQ(old->map_heap.LiveByStack(), leaked) << where;
  EXPECT_EQ(a.markers().size(), b.markers().size()) << where;
  EXPECT_EQ(a.LeakScanNow() == nullptr, b.LeakScanNow() == nullptr) << where;
  EXPECT_EQ(a.rss().peak_rss_bytes(), b.rss().peak_rss_bytes()) << where;
  EXPECT_EQ(a.rss().rss_at_heap_peak(), b.rss().rss_at_heap_peak()) << where;
  EXPECT_EQ(a.rss().heap_peak_bytes(), b.rss().heap_peak_bytes()) << where;
  ASSERT_EQ(a.rss().points().size(), b.rss().points().size()) << where;
  for (size_t i = 0; i < a.rss().points().size(); ++i) {
    EXPECT_EQ(a.rss().points()[i].sample, b.rss().points()[i].sample) << where << i;
    EXPECT_EQ(a.rss().points()[i].live_bytes, b.rss().points()[i].live_bytes) << where << i;
  }
  // Summary.
  EXPECT_EQ(old->summary.events(), now->summary.events()) << where;
  EXPECT_EQ(old->summary.allocations(), now->summary.allocations()) << where;
  EXPECT_EQ(old->summary.frees(), now->summary.frees()) << where;
  EXPECT_EQ(old->summary.bytes_allocated(), now->summary.bytes_allocated()) << where;
  EXPECT_EQ(old->summary.peak_bytes(), now->summary.peak_bytes()) << where;
  EXPECT_EQ(old->summary.peak_time_ns(), now->summary.peak_time_ns()) << where;
  EXPECT_EQ(old->summary.peak_seq(), now->summary.peak_seq()) << where;
  EXPECT_EQ(old->summary.temporaries(), now->summary.temporaries()) << where;
  EXPECT_EQ(old->summary.duration_ns(), now->summary.duration_ns()) << where;
  // Peak.
  EXPECT_EQ(old->peak.peak_bytes(), now->peak.peak_bytes()) << where;
  EXPECT_EQ(old->peak.peak_blocks(), now->peak.peak_blocks()) << where;
  EXPECT_EQ(old->peak.peak_time_ns(), now->peak.peak_time_ns()) << where;
  EXPECT_EQ(old->peak.peak_seq(), now->peak.peak_seq()) << where;
  EXPECT_EQ(old->peak.Sites(), now->peak.Sites()) << where;
  EXPECT_EQ(old->peak.live().Sorted(Metric::kBytes), now->peak.live().Sorted(Metric::kBytes))
      << where;
  // Hot sites and temporaries.
  EXPECT_EQ(old->hot.HotSites(), now->hot.HotSites()) << where;
  EXPECT_EQ(old->hot.TemporarySites(), now->hot.TemporarySites()) << where;
  EXPECT_EQ(old->hot.temporaries(), now->hot.temporaries()) << where;
}

void ExpectSameAnswers(AllAnalyzers* old, AllAnalyzers* now, const std::string& where) {
  ExpectSameCoreAnswers(old, now, where);
  const Analysis& a = old->analysis;
  const Analysis& b = now->analysis;
  // Histogram.
  for (int k = 0; k < HistogramAnalyzer::kBuckets; ++k) {
    EXPECT_EQ(old->histogram.bucket(k).count, now->histogram.bucket(k).count) << where << k;
    EXPECT_EQ(old->histogram.bucket(k).bytes, now->histogram.bucket(k).bytes) << where << k;
  }
  // Timeline.
  EXPECT_EQ(old->timeline.points(), now->timeline.points()) << where;
  EXPECT_EQ(old->timeline.has_rss(), now->timeline.has_rss()) << where;
  // Lifetimes, against the old analyzer too.
  ExpectSameLifetimes(&old->old_lifetimes.all(), &now->lifetimes.all(), where + " all (old)");
  ExpectSameLifetimes(&old->lifetimes.all(), &now->lifetimes.all(), where + " all");
  for (uint32_t s = 0; s < 1000; ++s) {
    ExpectSameLifetimes(old->old_lifetimes.Of(s), now->lifetimes.Of(s),
                        where + " stack (old) " + std::to_string(s));
    ExpectSameLifetimes(old->lifetimes.Of(s), now->lifetimes.Of(s),
                        where + " stack " + std::to_string(s));
  }
  // Mismatches.
  EXPECT_EQ(old->mismatches.total(), now->mismatches.total()) << where;
  ExpectSameMismatches(old->mismatches.Mismatches(), now->mismatches.Mismatches(), where);
  // The page's range profile.
  old->range.Finish(a.heap());
  now->range.Finish(b.heap());
  EXPECT_EQ(old->range.buckets(), now->range.buckets()) << where;
  EXPECT_EQ(old->range.cells(), now->range.cells()) << where;
  // --diff's snapshots.
  EXPECT_EQ(old->at_time.watch().reached(), now->at_time.watch().reached()) << where;
  EXPECT_EQ(old->at_time.Sites(), now->at_time.Sites()) << where;
  EXPECT_EQ(old->at_marker.watch().reached(), now->at_marker.watch().reached()) << where;
  EXPECT_EQ(old->at_marker.Sites(), now->at_marker.Sites()) << where;
}

}  // namespace heaprec::analyzers::testing
