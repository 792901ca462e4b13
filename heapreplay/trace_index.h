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
#include <string>
#include <vector>

#include "analyzers/analysis.h"
#include "analyzers/moment.h"
#include "analyzers/summary.h"
#include "format/decoder_state.h"

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
  uint32_t chunk = 0;             // the first chunk decoded after it
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

 private:
  std::string path_;
  uint64_t file_size_ = 0;
  std::vector<Checkpoint> checkpoints_;
  std::vector<std::string> labels_;
};

class IndexWriter {
 public:
  // Checkpoints this far apart in the trace file: 1/48 of it.
  static uint64_t Spacing(uint64_t trace_size) { return trace_size / 48 + 1; }

  IndexWriter(const std::string& trace, const IndexKey& key);
  ~IndexWriter();
  IndexWriter(const IndexWriter&) = delete;
  IndexWriter& operator=(const IndexWriter&) = delete;

  // A checkpoint of the pass `a` (with its summary `s`) after the chunk
  // that `state` follows.
  void Add(const format::DecoderState& state, const analyzers::Analysis& a,
           const analyzers::SummaryAnalyzer& s);
  // After the whole pass: writes the directory (markers from a) and puts
  // the file in place. False + *why if it could not be written.
  bool Finish(const analyzers::Analysis& a, std::string* why);
  const std::string& path() const { return path_; }

 private:
  bool Write(const std::string& bytes);
  std::string path_, tmp_;
  IndexKey key_;
  FILE* file_ = nullptr;
  uint64_t offset_ = 0;
  std::string error_;
  std::vector<Checkpoint> checkpoints_;
};

}  // namespace heaprec::heapreplay

#endif  // HEAPREC_HEAPREPLAY_TRACE_INDEX_H_
