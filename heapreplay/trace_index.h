// The trace index: TRACE.hri beside a heaprec trace (format/FORMAT.md, "The
// trace index"), checkpoints of a pass over it (every ~1/48 of the file:
// the reader's state after a chunk, format::DecoderState, and the pass's,
// analyzers::AnalysisState) so that a question about a moment late in a
// huge trace decodes only from the nearest checkpoint before it.
//
// IndexWriter collects the checkpoints of a pass and writes the file (to a
// temporary name, renamed when whole). TraceIndex opens one and says why not
// when it is missing, stale (the trace's size, time or first and last
// bytes changed: IndexKey) or damaged; each checkpoint's bytes carry a
// checksum, checked when it is read.
// Reads and writes files; allocates; not thread-safe.
#ifndef HEAPREC_HEAPREPLAY_TRACE_INDEX_H_
#define HEAPREC_HEAPREPLAY_TRACE_INDEX_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "analyzers/analysis.h"
#include "analyzers/hot.h"
#include "analyzers/moment.h"
#include "analyzers/peak.h"
#include "analyzers/summary.h"
#include "format/byte_io.h"
#include "format/decoder_state.h"
#include "format/trace_writer.h"

namespace heaprec::heapreplay {

// TRACE.hri.
std::string IndexPath(const std::string& trace);

// What ties an index to its trace.
struct IndexKey {
  uint64_t size = 0, mtime_ns = 0;
  uint64_t hash = 0;  // FNV-1a of the first and last 64 KiB
  friend bool operator==(const IndexKey&, const IndexKey&) = default;
};
// False + *error if the trace cannot be read.
bool KeyOf(const std::string& trace, IndexKey* key, std::string* error);

struct Checkpoint {
  uint32_t chunk = 0;  // the first chunk decoded after it
  // Where that chunk's zstd frame starts if it is the frame's first chunk
  // (else 0), and then how much of the index's record log (its first
  // bytes, its first chunks) holds the records before it.
  uint64_t frame_offset = 0;
  uint64_t log_bytes = 0, log_chunks = 0;
  uint64_t max_time_ns = 0;       // the latest event time before it
  uint64_t markers = 0;           // markers before it
  uint64_t offset = 0, size = 0;  // its bytes in the file
};

class TraceIndex {
 public:
  enum class Status { kOk, kMissing, kStale, kDamaged };
  // Opens trace's index; anything but kOk sets *why (a phrase: "the trace
  // changed since it was indexed", "bad directory checksum", ...).
  Status Open(const std::string& trace, const IndexKey& key, std::string* why);

  const std::vector<Checkpoint>& checkpoints() const { return checkpoints_; }
  // Every marker label of the trace, in order.
  const std::vector<std::string>& labels() const { return labels_; }

  // The checkpoint latest in the trace that comes before each moment (no
  // event after a time moment, no marker of a label moment before it), or
  // -1: none, or a label the trace does not have (a full pass says so).
  int Choose(const std::vector<analyzers::Moment>& moments) const;

  // Checkpoint i's reader state and pass state (AnalysisState bytes);
  // false + *why if its bytes are damaged.
  bool Read(int i, format::DecoderState* state, std::string* analysis, std::string* why) const;
  // The checkpoint at a frame start latest at or before checkpoint i, or -1.
  int FrameBefore(int i) const;
  // The record log: every record of the trace but events and RSS samples,
  // as a heaprec trace (its chunks end at the frame-start checkpoints);
  // false + *why if it cannot be read.
  bool ReadLog(std::string* log, std::string* why) const;

 private:
  std::string path_;
  uint64_t file_size_ = 0;
  std::vector<Checkpoint> checkpoints_;
  std::vector<std::string> labels_;
  uint64_t log_offset_ = 0, log_size_ = 0;
};

class IndexWriter {
 public:
  // Checkpoints this far apart in the trace file: 1/48 of it.
  static uint64_t Spacing(uint64_t trace_size) { return trace_size / 48 + 1; }
  // The checkpoints' bytes stop growing at this (the trace's size, at least
  // 16 MiB): a checkpoint that would pass it is left out, so a trace whose
  // live set is huge (millions of blocks) keeps an index no bigger than
  // itself, with fewer checkpoints (a seek then starts from an earlier one).
  static uint64_t Budget(uint64_t trace_size) {
    return trace_size > (16u << 20) ? trace_size : (16u << 20);
  }
  // And the live heaps saved, before compression, stop at four times that:
  // saving a live set of millions of blocks at every checkpoint would make a
  // pass that writes the index several times slower than one that does not
  // (tests/tiny_blocks, 5 M live blocks: 38 s against 7.9 s).
  static uint64_t RawBudget(uint64_t trace_size) { return 4 * Budget(trace_size); }

  IndexWriter(const std::string& trace, const IndexKey& key);
  ~IndexWriter();
  IndexWriter(const IndexWriter&) = delete;
  IndexWriter& operator=(const IndexWriter&) = delete;

  // Set as the pass's record tap (Analysis::set_record_tap) before it reads.
  format::TraceVisitor* log() { return &log_; }
  // A checkpoint of the pass `a` (with its summary `s`, and its peak and
  // hot-site analyzers, which every pass that writes an index runs) after
  // the chunk that `state` follows.
  void Add(const format::DecoderState& state, const analyzers::Analysis& a,
           const analyzers::SummaryAnalyzer& s, const analyzers::PeakAnalyzer& peak,
           const analyzers::HotAnalyzer& hot);
  // After the whole pass: writes the directory (markers from a) and puts
  // the file in place. False + *why if it could not be written.
  bool Finish(const analyzers::Analysis& a, std::string* why);
  const std::string& path() const { return path_; }
  // False (and why) when the file cannot be written: then no pass should
  // work for it.
  bool ok() const { return file_ != nullptr; }
  const std::string& error() const { return error_; }

 private:
  // The record log, a trace in memory.
  class Log : public format::TraceVisitor {
   public:
    void OnProcess(const format::ProcessInfo& p) override;
    void OnModule(const format::Module& m) override {
      if (w_) w_->AddModule(m);
    }
    void OnModuleUnload(const format::ModuleUnload& u) override {
      if (w_) w_->AddModuleUnload(u);
    }
    void OnThread(const format::ThreadInfo& t) override {
      if (w_) w_->AddThread(t);
    }
    void OnStackNode(const format::StackNode& n) override {
      if (w_) w_->AddStackNode(n);
    }
    void OnSymbol(const format::Symbol& s) override {
      if (w_) w_->AddSymbol(s);
    }
    void OnMarker(const format::Marker& m) override {
      if (w_) w_->AddMarker(m);
    }
    void OnLeakScan(const format::LeakScan& s) override {
      if (w_) w_->AddLeakScan(s);
    }
    // Ends the log's chunk: false if there is no log (no process record).
    bool Cut(uint64_t* bytes, uint64_t* chunks);
    const std::string& bytes() const { return sink_.bytes(); }

   private:
    format::StringSink sink_;
    std::unique_ptr<format::TraceWriter> w_;
  };
  bool Write(const std::string& bytes);
  std::string path_, tmp_;
  IndexKey key_;
  FILE* file_ = nullptr;
  uint64_t offset_ = 0;
  uint64_t raw_ = 0;  // checkpoints' bytes before compression (RawBudget)
  std::string error_;
  std::vector<Checkpoint> checkpoints_;
  Log log_;
};

}  // namespace heaprec::heapreplay

#endif  // HEAPREC_HEAPREPLAY_TRACE_INDEX_H_
