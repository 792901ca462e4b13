// Analysis: the one streaming pass of heapreplay. A TraceVisitor that keeps
// what every analysis shares (the live heap, the symbol table, the process,
// markers, thread names, the end record) and hands the events, after the
// live heap applied them, to the Analyzers added (analyzer.h): in runs of up
// to kStep events, or one at a time while an analyzer added asks for that.
// An only analyzer that applies the events itself (AppliesEvents: the
// CorePass of heapreplay's default and --leaks --peak --temporaries passes)
// gets each run before it is applied (mt_handoff's pass: 7,652 -> 7,403 M
// instructions, the same answers).
//
// With a stop moment (--at), the pass ends there: later events and markers
// are not applied, so every analysis answers "as of that moment" (leaks are
// the blocks live then, the peak is the highest point before it). Stack
// nodes, modules and symbols are still read to the end of the trace.
// Not thread-safe; memory: live blocks, stacks, symbols.
#ifndef HEAPREC_ANALYZERS_ANALYSIS_H_
#define HEAPREC_ANALYZERS_ANALYSIS_H_

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analyzers/analyzer.h"
#include "analyzers/live_heap.h"
#include "analyzers/moment.h"
#include "analyzers/rss.h"
#include "analyzers/symbol_table.h"
#include "format/decoder_state.h"
#include "format/trace_visitor.h"

namespace heaprec::analyzers {

class Analysis : public format::TraceVisitor {
 public:
  Analysis() = default;
  explicit Analysis(const Moment& stop_at);

  // Runs of events go through the heap and the analyzers this many at a
  // time, so that a run's changes (26 KiB) stay in the first-level cache
  // from one analyzer to the next (256: 5-7% less CPU than 1024; 64 and
  // 128 the same as 256).
  static constexpr size_t kStep = 256;

  // Analyzers are called in the order added; not owned.
  void Add(Analyzer* a) {
    analyzers_.push_back(a);
    batched_.push_back(a->EventsInBatches());
    if (!a->EventsInBatches()) one_at_a_time_ = true;
    if (a->WantsBeforeEvent()) before_.push_back(a);
    // The only analyzer, if it applies the events itself (analyzer.h).
    applier_ = analyzers_.size() == 1 && a->AppliesEvents() ? a : nullptr;
  }

  void OnProcess(const format::ProcessInfo& p) override {
    if (tap_ != nullptr) tap_->OnProcess(p);
    process_ = p;
    heap_.set_sample_rate(p.sample_rate);
    heap_.OnProcess(p);
  }
  void OnModule(const format::Module& m) override {
    if (tap_ != nullptr) tap_->OnModule(m);
    symbols_.AddModule(m);
  }
  void OnModuleUnload(const format::ModuleUnload& u) override {
    if (tap_ != nullptr) tap_->OnModuleUnload(u);
  }
  void OnThread(const format::ThreadInfo& t) override {
    if (tap_ != nullptr) tap_->OnThread(t);
    threads_.push_back(t);
  }
  void OnStackNode(const format::StackNode& n) override {
    if (tap_ != nullptr) tap_->OnStackNode(n);
    symbols_.AddStackNode(n);
  }
  void OnSymbol(const format::Symbol& s) override {
    if (tap_ != nullptr) tap_->OnSymbol(s);
    symbols_.AddSymbol(s);
  }
  void OnMarker(const format::Marker& m) override;
  void OnEvent(const format::Event& e) override { OnEvents(format::OneEvent(e)); }
  void OnEvents(const format::EventSpan& events) override;
  void OnEnd(const format::EndRecord& e) override { end_ = e; }
  // Joins a scan's parts; keeps the last complete scan.
  void OnLeakScan(const format::LeakScan& s) override;
  void OnRssSample(const format::RssSample& s) override;
  // Seeking (heapreplay's trace index): a checkpoint the reader offers goes
  // to the sink set, unless the pass has stopped; OnResume finishes what
  // AnalysisState::Restore began (analysis_state.h).
  void OnCheckpoint(const format::DecoderState& s) override {
    if (checkpoint_sink_ && !stopped()) checkpoint_sink_(s);
  }
  void OnResume() override { changes_since_scan_ = resumed_changes_since_scan_; }
  void set_checkpoint_sink(std::function<void(const format::DecoderState&)> sink) {
    checkpoint_sink_ = std::move(sink);
  }
  // Set to true when the pass reaches its stop moment: the reader may skim
  // the rest (format::ReaderOptions::skip_events_after).
  void set_stop_flag(std::atomic<bool>* flag) { stop_flag_ = flag; }
  // Gets every record but events and RSS samples, as this pass takes them
  // (leak scans whole, once joined; nothing after the stop moment): what
  // heapreplay's trace index keeps so that a read can start at a later
  // zstd frame. Not owned; null: none.
  void set_record_tap(format::TraceVisitor* tap) { tap_ = tap; }

  const LiveHeap& heap() const { return heap_; }
  const SymbolTable& symbols() const { return symbols_; }
  SymbolTable& symbols() { return symbols_; }
  const std::optional<format::ProcessInfo>& process() const { return process_; }
  // The traced command line (arguments joined by spaces; the program if it
  // had none); "?" without a ProcessInfo.
  std::string CommandLine() const;
  const std::optional<format::EndRecord>& end() const { return end_; }
  const std::vector<format::Marker>& markers() const { return markers_; }
  const std::vector<format::ThreadInfo>& threads() const { return threads_; }
  // The stop moment, if one was given (reached() says whether the trace got there).
  const std::optional<MomentWatch>& stop() const { return stop_; }
  bool stopped() const { return stop_ && stop_->reached(); }
  // The moment the live heap stands at, as reports name it after "live at":
  // MomentWords of the stop moment if the pass stopped there, else "the end".
  std::string LiveAt() const;
  // The leak scan that describes the live heap as the pass left it (no block
  // made or released since), or nullptr; then LeakScanMissing() says why.
  const format::LeakScan* LeakScanNow() const;
  std::string LeakScanMissing() const;
  // Every complete leak scan met, in order.
  const std::vector<format::LeakScan>& leak_scans() const { return leak_scans_; }
  // The process's RSS beside the live heap (format 3.4; rss.h).
  const RssTrack& rss() const { return rss_; }

 private:
  friend class AnalysisState;  // analysis_state.h
  void Stopped() {
    if (stop_flag_ != nullptr) stop_flag_->store(true, std::memory_order_relaxed);
  }
  // At most kStep events, up to the stop moment.
  void Step(const format::EventSpan& events);
  // What every event changes besides the heap and the analyzers.
  void Account(const format::Event& e, const HeapChange& c) {
    EventTally tally{changes_since_scan_, &rss_};
    tally.Count(e, c);
    changes_since_scan_ = tally.changes_since_scan;
  }

  LiveHeap heap_;
  SymbolTable symbols_;
  std::vector<Analyzer*> analyzers_;
  std::vector<bool> batched_;      // per analyzer: EventsInBatches()
  bool one_at_a_time_ = false;     // some analyzer is not batched
  std::vector<Analyzer*> before_;  // those that want BeforeEvent
  Analyzer* applier_ = nullptr;    // the only analyzer, if AppliesEvents()
  std::vector<HeapChange> changes_ = std::vector<HeapChange>(kStep);  // of a step's events
  std::optional<format::ProcessInfo> process_;
  std::optional<format::EndRecord> end_;
  std::vector<format::Marker> markers_;
  std::vector<format::ThreadInfo> threads_;
  std::optional<MomentWatch> stop_;
  std::vector<format::LeakScan> leak_scans_;
  format::LeakScan joining_;         // the parts of a scan so far
  uint64_t changes_since_scan_ = 0;  // heap changes after the last scan
  RssTrack rss_;
  std::function<void(const format::DecoderState&)> checkpoint_sink_;
  std::atomic<bool>* stop_flag_ = nullptr;
  format::TraceVisitor* tap_ = nullptr;
  uint64_t resumed_changes_since_scan_ = 0;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_ANALYSIS_H_
