// The streaming pass (analysis.h).
#include "analyzers/analysis.h"

#include <algorithm>

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
  heap_.OnMarker(m);
  if (stop_ && stop_->AtMarker(m)) {
    Stopped();
    return;
  }
  if (tap_ != nullptr) tap_->OnMarker(m);
  markers_.push_back(m);
  for (Analyzer* a : analyzers_) a->OnMarker(m);
}

void Analysis::OnEvents(const format::EventSpan& events) {
  for (size_t begin = 0; begin < events.count && !stopped(); begin += kStep) {
    Step(events.Sub(begin, std::min(events.count, begin + kStep)));
  }
}

void Analysis::Step(const format::EventSpan& run) {
  size_t n = run.count;
  if (stop_) {  // the pass ends just before the event that reaches it
    for (size_t i = 0; i < run.count; ++i) {
      if (stop_->BeforeEvent(run.At(i))) {
        Stopped();
        n = i;
        break;
      }
    }
  }
  const format::EventSpan events = run.Sub(0, n);
  if (applier_ != nullptr) {
    EventTally tally{changes_since_scan_, &rss_};
    if (n != 0) applier_->ApplyAndTake(events, &heap_, &tally);
    changes_since_scan_ = tally.changes_since_scan;
    return;
  }
  HeapChange* c = changes_.data();
  if (one_at_a_time_) {
    for (size_t i = 0; i < n; ++i) {
      const format::Event e = events.At(i);
      for (Analyzer* a : before_) a->BeforeEvent(e, heap_);
      c[i] = heap_.Apply(e);
      Account(e, c[i]);
      for (size_t k = 0; k < analyzers_.size(); ++k) {
        if (batched_[k]) {
          analyzers_[k]->OnEvents(events.Sub(i, i + 1), &c[i], heap_);
        } else {
          analyzers_[k]->OnEvent(e, c[i], heap_);
        }
      }
    }
    return;
  }
  constexpr size_t kPrefetch = LiveHeap::kPrefetchEvents;
  format::ForEachEvent(
      events, [&](const format::Event& e, size_t i) __attribute__((always_inline)) {
        if (i + kPrefetch < n) heap_.Prefetch(events.block[i + kPrefetch]);
        heap_.Apply(e, &c[i]);
        Account(e, c[i]);
      });
  if (n == 0) return;
  for (Analyzer* a : analyzers_) a->OnEvents(events, c, heap_);
}

void Analysis::OnRssSample(const format::RssSample& s) {
  if (stopped()) return;
  rss_.OnSample(s, heap_.live_bytes());
  for (Analyzer* a : analyzers_) a->OnRssSample(s, heap_);
}

void Analysis::OnLeakScan(const format::LeakScan& s) {
  // A scan at the stop moment itself (its marker stopped the pass) counts.
  if (stopped() && s.seq != stop_->seq()) return;
  if (s.part == 0) {
    joining_ = s;
  } else {
    joining_.blocks.insert(joining_.blocks.end(), s.blocks.begin(), s.blocks.end());
    joining_.kinds.insert(joining_.kinds.end(), s.kinds.begin(), s.kinds.end());
    joining_.block_roots.insert(joining_.block_roots.end(), s.block_roots.begin(),
                                s.block_roots.end());
    joining_.block_indirect.insert(joining_.block_indirect.end(), s.block_indirect.begin(),
                                   s.block_indirect.end());
  }
  if (s.more) return;
  joining_.more = false;
  if (tap_ != nullptr) tap_->OnLeakScan(joining_);
  leak_scans_.push_back(std::move(joining_));
  joining_ = format::LeakScan{};
  changes_since_scan_ = 0;
}

const format::LeakScan* Analysis::LeakScanNow() const {
  if (leak_scans_.empty() || changes_since_scan_ != 0) return nullptr;
  return &leak_scans_.back();
}

std::string Analysis::LiveAt() const {
  return stopped() ? MomentWords(stop_->moment()) : "the end";
}

std::string Analysis::LeakScanMissing() const {
  if (leak_scans_.empty() && stopped()) {
    // The recorder scans at the process's end and when asked mid-run.
    return "no leak scan by " + LiveAt() +
           " (the recorder scans at the process's end, and when the program calls "
           "heaprec_leak_check())";
  }
  if (leak_scans_.empty() && process_ && process_->recorder.rfind("heaptrack", 0) == 0) {
    return "heaptrack does not scan memory for pointers";
  }
  if (leak_scans_.empty()) {
    return "the trace has no leak scan (recorded with heaprec --no-leak-scan, by a heaprec "
           "before trace format 3.1, or cut before its end)";
  }
  const format::LeakScan& last = leak_scans_.back();
  return "no leak scan at this moment: blocks were made or freed after the last one" +
         (last.label.empty() ? std::string() : " (--at " + last.label + " shows it)");
}

}  // namespace heaprec::analyzers
