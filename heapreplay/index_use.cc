// The trace index in one pass (index_use.h).
#include "heapreplay/index_use.h"

#include <atomic>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyzers/analysis_state.h"
#include "analyzers/core_pass.h"
#include "format/heaptrack_reader.h"
#include "format/read_ahead.h"
#include "heapreplay/progress_meter.h"

namespace heaprec::heapreplay {
namespace {

using analyzers::Moment;

// The question depends only on what a checkpoint holds at its moments: the
// live heap, the summary, the peak and the hot sites (not lifetimes).
bool Seekable(const Options& o, const AnalysisPlan& p) {
  const analyzers::ReportOptions& r = o.report;
  return !p.lifetimes_run && !r.histogram && !r.timeline && !r.mismatches && o.html.empty() &&
         o.exports.empty() && o.base.empty() && !o.folded && o.flamegraph.empty() &&
         o.pprof.empty();
}

std::vector<Moment> MomentsOf(const Options& o) {
  std::vector<Moment> moments;
  std::string unused;
  for (const std::string* text : {&o.at, &o.from, &o.to}) {
    if (text->empty()) continue;
    if (std::optional<Moment> m = analyzers::ParseMoment(*text, &unused)) moments.push_back(*m);
  }
  return moments;
}

void Say(const std::string& line) { std::fprintf(stderr, "heapreplay: %s\n", line.c_str()); }

// A pass of its own that writes trace's index (for a pass that stops at --at).
bool BuildIndex(const std::string& trace, const IndexKey& key) {
  analyzers::Analysis a;
  analyzers::SummaryAnalyzer s;
  analyzers::PeakAnalyzer peak;
  analyzers::HotAnalyzer hot;
  analyzers::CorePass core(&s, &peak, &hot);
  a.Add(&core);
  IndexWriter writer(trace, key);
  if (!writer.ok()) {
    Say("cannot write index " + writer.path() + ": " + writer.error() +
        " (questions about moments read the whole trace)");
    return false;
  }
  a.set_record_tap(writer.log());
  a.set_checkpoint_sink([&](const format::DecoderState& d) { writer.Add(d, a, s, peak, hot); });
  format::ReaderOptions options;
  options.checkpoint_every_bytes = IndexWriter::Spacing(key.size);
  const format::ReadResult r = format::ReadTraceFileAhead(trace, a, options);
  if (r.status == format::ReadResult::kError) return false;  // the pass says why
  std::string why;
  if (!writer.Finish(a, &why)) {
    Say("cannot write index " + writer.path() + ": " + why +
        " (questions about moments read the whole trace)");
    return false;
  }
  return true;
}

}  // namespace

bool IndexSeek::Load(const TraceIndex& index, int i, std::string* why) {
  analyzers::Analysis scratch;
  analyzers::SummaryAnalyzer scratch_summary;  // and the peak's and hot sites' checked, dropped
  std::string unused;
  from_frame_ = false;
  if (!index.Read(i, &resume_, &state_, why)) return false;
  format::StateReader check(state_);
  if (!analyzers::AnalysisState::Restore(&check, &scratch, &scratch_summary)) {
    *why = "checkpoint " + std::to_string(i) + " is damaged";
    return false;
  }
  // The frame to start decompressing at, and the records before it.
  const int j = index.FrameBefore(i);
  log_.clear();
  if (j < 0) return true;
  const Checkpoint& c = index.checkpoints()[static_cast<size_t>(j)];
  if (!index.Read(j, &jump_, &unused, why) || jump_.frame_offset != c.frame_offset ||
      !index.ReadLog(&log_, why)) {
    if (why->empty()) *why = "checkpoint " + std::to_string(j) + " is damaged";
    return false;
  }
  log_.resize(c.log_bytes);
  const format::ReadResult r =
      format::ReadTraceMemory("index log", log_.data(), log_.size(), scratch);
  if (r.status == format::ReadResult::kError || r.chunks != c.log_chunks) {
    *why = "its record log is damaged";
    return false;
  }
  from_frame_ = true;
  return true;
}

void IndexSeek::Start(analyzers::Analysis* a, analyzers::SummaryAnalyzer* s,
                      format::ReaderOptions* options, analyzers::PeakAnalyzer* peak,
                      analyzers::HotAnalyzer* hot) const {
  format::StateReader r(state_);
  analyzers::AnalysisState::Restore(&r, a, s, peak, hot);
  if (from_frame_) {
    format::ReadTraceMemory("index log", log_.data(), log_.size(), *a);
    options->jump = &jump_;
  }
  options->resume = &resume_;
}

bool IndexUse::TryResume(const Options& o, const TraceIndex& index, AnalysisPlan* p,
                         format::ReaderOptions* options) {
  std::vector<Moment> moments = MomentsOf(o);
  if (p->before && p->after && o.at.empty()) {
    // --diff --from A --to B: the live set at each moment by a short pass
    // of its own from the checkpoint before it, unless this pass starts
    // there anyway (it starts at the last checkpoint: it reads to the end).
    moments.clear();
    const int last = index.Choose({});
    std::string unused;
    for (auto [text, snapshot] : {std::pair{&o.from, p->before.get()}, {&o.to, p->after.get()}}) {
      if (text->empty()) continue;
      const std::optional<Moment> m = analyzers::ParseMoment(*text, &unused);
      if (!m) continue;
      if (index.Choose({*m}) == last || !Snapshot(o, index, *m, snapshot)) moments.push_back(*m);
    }
  }
  const int i = index.Choose(moments);
  if (i < 0) return true;  // no checkpoint before the moments: a whole pass
  std::string why;
  if (!seek_.Load(index, i, &why)) {
    Say("ignoring index " + IndexPath(o.trace) + ": " + why + "; rebuilding it");
    return false;
  }
  seek_.Start(&p->analysis, &p->summary, options, &p->peak, &p->hot);
  p->from_frame = seek_.from_frame();
  if (p->before && !p->before->adopted()) p->before->StartFrom(p->analysis.heap());
  if (p->after && !p->after->adopted()) p->after->StartFrom(p->analysis.heap());
  p->from_checkpoint = true;
  return true;
}

bool IndexUse::Snapshot(const Options& o, const TraceIndex& index, const Moment& at,
                        analyzers::LiveSnapshot* into) {
  const int i = index.Choose({at});
  if (i < 0) return false;
  IndexSeek seek;
  std::string why;
  if (!seek.Load(index, i, &why)) return false;  // the main pass says why
  analyzers::Analysis a(at);
  analyzers::SummaryAnalyzer s;
  analyzers::LiveSnapshot snapshot(at);
  a.Add(&s);
  a.Add(&snapshot);
  std::atomic<bool> reached{false};
  a.set_stop_flag(&reached);
  format::ReaderOptions options;
  options.end_after = &reached;
  seek.Start(&a, &s, &options);
  snapshot.StartFrom(a.heap());
  format::ReadProgress progress;
  options.progress = &progress;
  format::ReadResult r;
  {
    const ProgressMeter meter(o.trace, &progress);
    r = format::ReadTraceFileAhead(o.trace, a, options);
  }
  // A read that did not reach the moment: the main pass answers and warns.
  // (It may have read on past it: the reader runs ahead of the pass.)
  if (r.status == format::ReadResult::kError || !a.stop() || !a.stop()->reached()) return false;
  into->Adopt(snapshot.Sites(), *a.stop());
  return true;
}

void IndexUse::Prepare(const Options& o, AnalysisPlan* p, format::ReaderOptions* options) {
  p->analysis.set_stop_flag(&stopped_);
  options->skip_events_after = &stopped_;
  if (o.no_index || format::IsHeaptrackFile(o.trace)) return;
  IndexKey key;
  std::string why;
  if (!KeyOf(o.trace, &key, &why)) return;  // the read says what is wrong
  const bool seekable = Seekable(o, *p);
  TraceIndex index;
  TraceIndex::Status status = index.Open(o.trace, key, &why);
  if (status == TraceIndex::Status::kStale || status == TraceIndex::Status::kDamaged) {
    Say("ignoring index " + IndexPath(o.trace) + ": " + why + "; rebuilding it");
  }
  if (status == TraceIndex::Status::kOk && !o.index) {
    if (!seekable || TryResume(o, index, p, options)) return;
    status = TraceIndex::Status::kDamaged;
  }
  if (!o.index && status == TraceIndex::Status::kMissing && key.size < kAutoIndexBytes) return;
  if (o.at.empty()) {  // this pass reads to the end: it writes the index
    writer_ = std::make_unique<IndexWriter>(o.trace, key);
    if (!writer_->ok()) {
      Say("cannot write index " + writer_->path() + ": " + writer_->error() +
          " (questions about moments read the whole trace)");
      writer_.reset();
      return;
    }
    p->analysis.set_record_tap(writer_->log());
    options->checkpoint_every_bytes = IndexWriter::Spacing(key.size);
    // The checkpoints hold the peak and hot sites whatever this pass asks.
    if (!p->peak_run) p->analysis.Add(&p->peak);
    if (!p->hot_run) p->analysis.Add(&p->hot);
    p->analysis.set_checkpoint_sink([this, p](const format::DecoderState& d) {
      writer_->Add(d, p->analysis, p->summary, p->peak, p->hot);
    });
    return;
  }
  if ((!seekable && !o.index) || !BuildIndex(o.trace, key) || !seekable) return;
  if (index.Open(o.trace, key, &why) == TraceIndex::Status::kOk) TryResume(o, index, p, options);
}

void IndexUse::Finish(const Options& o, const AnalysisPlan& p) {
  if (!writer_) return;
  std::string why;
  if (!writer_->Finish(p.analysis, &why)) {
    Say("cannot write index " + writer_->path() + ": " + why +
        " (questions about moments read the whole trace)");
  } else if (o.index) {
    Say("wrote index " + writer_->path());
  }
  writer_.reset();
}

}  // namespace heaprec::heapreplay
