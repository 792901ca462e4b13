// IndexUse: how one heapreplay pass uses the trace index (trace_index.h).
//
// Before the read (Prepare):
// - A pass with a stop moment (--at) lets the reader skim the chunks after
//   it (their events are not decoded; stack nodes, symbols and the end
//   still are).
// - A question that depends only on the live heap, the summary, the peak
//   and the hot sites and temporaries at its moments (the overview, --at,
//   --diff --from/--to, --leaks, --peak, --hot, --temporaries; no
//   lifetimes, which the JSON of hot sites and temporaries holds, no
//   --histogram, --timeline, --mismatches, drawings, pages or exports, not
//   --base) starts from the index's latest checkpoint before its moments
//   (without moments: the latest), if the trace has a valid index: the
//   reader skims the chunks before it, and the pass's live heap, summary,
//   RSS track, peak and hot sites start from the checkpoint's. --diff
//   --from A --to B takes the live set at each moment by a short pass of
//   its own (from the moment's checkpoint to the moment, where it ends)
//   and the summary and leaks (and peak and hot sites) at the end by a
//   pass from the last checkpoint: about three checkpoint intervals,
//   whatever the window between A and B.
// - A stale or damaged index is ignored, with one line on stderr, and
//   rebuilt. A trace without a valid index gets one when it is at least
//   kAutoIndexBytes (or --index asks): a pass that reads to the end writes
//   it as it goes (and runs the peak and hot-site analyzers for it if the
//   question does not); a pass with --at first makes one by a pass of its
//   own (live heap, summary, peak and hot sites only) and then seeks.
//   --no-index: none of this but the skimming after --at.
// Finish, after a read that succeeded, writes the index a pass made.
// Prints at most a line or two on stderr; never fails a pass.
// Reads and writes files; allocates; main thread only.
#ifndef HEAPREC_HEAPREPLAY_INDEX_USE_H_
#define HEAPREC_HEAPREPLAY_INDEX_USE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "format/decoder_state.h"
#include "format/trace_reader.h"
#include "heapreplay/analysis_plan.h"
#include "heapreplay/options.h"
#include "heapreplay/trace_index.h"

namespace heaprec::heapreplay {

// Traces this big (bytes of the file) get an index without --index.
inline constexpr uint64_t kAutoIndexBytes = 16 * 1024 * 1024;

// One checkpoint of an index, loaded and checked, ready to start a pass.
class IndexSeek {
 public:
  // Reads checkpoint i and the record log before its frame; false + *why
  // if any of it is damaged.
  bool Load(const TraceIndex& index, int i, std::string* why);
  // Puts the checkpoint's state into a fresh pass (a and s, and peak and
  // hot unless null; the records before its frame too) and tells the reader
  // where to start. The options point into this object, which must outlive
  // the read.
  void Start(analyzers::Analysis* a, analyzers::SummaryAnalyzer* s, format::ReaderOptions* options,
             analyzers::PeakAnalyzer* peak = nullptr, analyzers::HotAnalyzer* hot = nullptr) const;
  bool from_frame() const { return from_frame_; }

 private:
  format::DecoderState resume_, jump_;
  std::string state_, log_;
  bool from_frame_ = false;
};

class IndexUse {
 public:
  void Prepare(const Options& o, AnalysisPlan* p, format::ReaderOptions* options);
  void Finish(const Options& o, const AnalysisPlan& p);

 private:
  // Starts the pass from the index's checkpoint for its moments, if any.
  bool TryResume(const Options& o, const TraceIndex& index, AnalysisPlan* p,
                 format::ReaderOptions* options);

  // --diff: takes the live set at a moment (into `into`) by a pass of its
  // own from the checkpoint before it to the moment; false if it cannot.
  bool Snapshot(const Options& o, const TraceIndex& index, const analyzers::Moment& at,
                analyzers::LiveSnapshot* into);

  std::atomic<bool> stopped_{false};
  IndexSeek seek_;
  std::unique_ptr<IndexWriter> writer_;
};

}  // namespace heaprec::heapreplay

#endif  // HEAPREC_HEAPREPLAY_INDEX_USE_H_
