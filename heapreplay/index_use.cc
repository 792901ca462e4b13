// The trace index in one pass (index_use.h).
#include "heapreplay/index_use.h"

#include <cstdio>
#include <vector>

#include "analyzers/analysis_state.h"
#include "format/heaptrack_reader.h"
#include "format/read_ahead.h"

namespace heaprec::heapreplay {
namespace {

using analyzers::Moment;

// The question depends only on the live heap and the summary at its moments.
bool Seekable(const Options& o, const AnalysisPlan& p) {
  const analyzers::ReportOptions& r = o.report;
  return !p.peak_run && !p.hot_run && !p.lifetimes_run && !r.histogram && !r.timeline &&
         !r.mismatches && !r.overview && o.html.empty() && o.exports.empty() && o.base.empty() &&
         !o.folded && o.flamegraph.empty() && o.pprof.empty();
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
  a.Add(&s);
  IndexWriter writer(trace, key);
  if (!writer.ok()) {
    Say("cannot write index " + writer.path() + ": " + writer.error() +
        " (questions about moments read the whole trace)");
    return false;
  }
  a.set_record_tap(writer.log());
  a.set_checkpoint_sink([&](const format::DecoderState& d) { writer.Add(d, a, s); });
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

bool IndexUse::TryResume(const Options& o, const TraceIndex& index, AnalysisPlan* p,
                         format::ReaderOptions* options) {
  const int i = index.Choose(MomentsOf(o));
  if (i < 0) return true;  // no checkpoint before the moments: a whole pass
  std::string bytes, why;
  analyzers::Analysis scratch;
  analyzers::SummaryAnalyzer scratch_summary;
  bool ok = index.Read(i, &resume_, &bytes, &why);
  if (ok) {
    format::StateReader check(bytes);
    ok = analyzers::AnalysisState::Restore(&check, &scratch, &scratch_summary);
    if (!ok) why = "checkpoint " + std::to_string(i) + " is damaged";
  }
  // The frame to start decompressing at, and the records before it.
  const int j = ok ? index.FrameBefore(i) : -1;
  std::string log;
  if (j >= 0) {
    std::string unused;
    const Checkpoint& c = index.checkpoints()[static_cast<size_t>(j)];
    ok = index.Read(j, &jump_, &unused, &why) && jump_.frame_offset == c.frame_offset &&
         index.ReadLog(&log, &why);
    if (ok) {
      log.resize(c.log_bytes);
      const format::ReadResult r =
          format::ReadTraceMemory("index log", log.data(), log.size(), scratch);
      ok = r.status != format::ReadResult::kError && r.chunks == c.log_chunks;
      if (!ok) why = "its record log is damaged";
    }
  }
  if (!ok) {
    Say("ignoring index " + IndexPath(o.trace) + ": " + why + "; rebuilding it");
    return false;
  }
  format::StateReader r(bytes);
  analyzers::AnalysisState::Restore(&r, &p->analysis, &p->summary);
  if (j >= 0) {
    format::ReadTraceMemory("index log", log.data(), log.size(), p->analysis);
    options->jump = &jump_;
    p->from_frame = true;
  }
  if (p->before) p->before->StartFrom(p->analysis.heap());
  if (p->after) p->after->StartFrom(p->analysis.heap());
  options->resume = &resume_;
  p->from_checkpoint = true;
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
    p->analysis.set_checkpoint_sink(
        [this, p](const format::DecoderState& d) { writer_->Add(d, p->analysis, p->summary); });
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
