// RegionReader: the launcher's side of one process image's shared region.
// Maps the region file, moves records out of the rings as they are written
// (so a producer never waits long), and hands them on in seq order: the one
// total order the trace needs.
//
// Every taken seq is written exactly once, so records are emitted strictly in
// sequence; a gap means a record is still being written and emission waits
// for it, for at most a second (then the gap is skipped and counted), or not
// at all once the process is gone (Final). Everything read from the region is
// bounds-checked: a program that scribbles on it can spoil its own trace but
// cannot crash the launcher.
//
// The region file stays open while the reader lives (its name is unlinked
// once adopted): `heaprec --start/--stop PID` reaches the region through
// /proc/<launcher>/fd (launcher/recording_control.h).
//
// Not thread-safe; allocates (local queues). Used by the launcher's loop.
#ifndef HEAPREC_RECORDER_LAUNCHER_REGION_READER_H_
#define HEAPREC_RECORDER_LAUNCHER_REGION_READER_H_

#include <cstdint>
#include <memory>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "base/large_buffers.h"
#include "recorder/shared/region_layout.h"

namespace heaprec::recorder::launcher {

class RecordSink {
 public:
  virtual ~RecordSink() = default;
  // One record, in seq order. slot: the ring it came from (0 = shared ring).
  virtual void OnRecord(uint32_t slot, const RawRecord& record) = 0;
  // A hint: record comes a few OnRecord calls from now (nothing to do with
  // it yet; a sink may ask for the memory it will touch).
  virtual void Prefetch(const RawRecord& /*record*/) {}
  // Records [first, first + n) of one ring, with consecutive seqs, in order;
  // the ring's records queued after them end at queued_end (what a hint may
  // read). By default, for each record: Prefetch(the record kPrefetchAhead
  // places behind it, if queued), then OnRecord. One virtual call a run
  // instead of two a record: a sink may do the same in its own loop.
  virtual void OnRun(uint32_t slot, const RawRecord* first, size_t n, const RawRecord* queued_end) {
    for (const RawRecord* r = first; r != first + n; ++r) {
      if (queued_end - r > static_cast<std::ptrdiff_t>(kPrefetchAhead)) Prefetch(r[kPrefetchAhead]);
      OnRecord(slot, *r);
    }
  }
  // Enough to cover a cache miss at the launcher's ~100 ns a record.
  static constexpr size_t kPrefetchAhead = 8;
};

class RegionReader {
 public:
  // Maps path. Returns nullptr while the region is not ready (header not yet
  // written) or on error (*error set when it will never be ready).
  static std::unique_ptr<RegionReader> Open(const std::string& path, std::string* error);
  ~RegionReader();
  RegionReader(const RegionReader&) = delete;
  RegionReader& operator=(const RegionReader&) = delete;

  const RegionHeader& header() const { return *view_.header(); }
  // Publishes the time (CLOCK_MONOTONIC, ns) for the producers' records
  // (RegionHeader::launcher_clock_ns).
  void PublishClock(uint64_t monotonic_ns) {
    const uint64_t start = view_.header()->start_monotonic_ns;
    view_.header()->launcher_clock_ns.store(monotonic_ns > start ? monotonic_ns - start : 1,
                                            std::memory_order_relaxed);
  }
  const std::string& path() const { return path_; }
  // The reader's own mapping of the region (tests write through it, so that
  // ThreadSanitizer sees both sides at the same addresses).
  const RegionView& view() const { return view_; }

  // Copies the records written so far out of the rings, at most kDrainPiece
  // from a thread's ring (unless all); frees the slots of threads that
  // exited once their rings are empty. Returns records moved. Emit copies a
  // ring's next piece when its queue runs out: a piece is handed on while it
  // is still in the cache (copying a full ring, 1.5 MiB, then reading it
  // back read it from memory).
  // A thread ring whose queue already holds kMaxQueued records not yet
  // emitted is left as it is (unless all): emission waits for a gap (a seq
  // taken but not yet written, by a thread that was preempted), and without
  // this the other threads' records, copied out as fast as they come, grew
  // the queues by hundreds of MiB (tools/soak.sh: the launcher at 504 MiB).
  // The producer of a full ring waits instead, as it does for a slow
  // launcher. The record that fills the gap is never held back: a ring's
  // records come in seq order, so it is in a ring whose queue is empty.
  // The shared ring 0 (several threads, not in seq order) is always copied.
  size_t Drain(bool all = false);
  static constexpr size_t kMaxQueued = 2 * kRingRecords;
  static constexpr size_t kDrainPiece = 4096;
  // Emits queued records in seq order through sink, a run of one ring's
  // consecutive seqs at a time (RecordSink::OnRun). With final (the process
  // is gone), emits everything, skipping gaps. Without final, stops once it
  // has emitted budget records (at the end of a run, so it may pass it by
  // one run's length; later calls go on where it stopped): a thread that
  // writes as fast as its queue is emitted would otherwise keep Emit going
  // for as long as it runs. Returns records emitted.
  size_t Emit(RecordSink& sink, bool final, uint64_t now_ns, size_t budget = SIZE_MAX);
  static constexpr size_t kPrefetchAhead = RecordSink::kPrefetchAhead;
  bool idle() const { return queued_ == 0; }

  // The stack entry id's frames, innermost first. False if id is invalid.
  bool ReadStack(uint32_t id, std::vector<uint64_t>* frames) const;
  // The label of a marker record, or "" if the index is invalid.
  std::string Label(uint64_t index) const;
  // Module log entries not yet returned, up to the first not yet ready.
  std::vector<const ModuleRecord*> NewModules();

  uint64_t skipped_seqs() const { return skipped_seqs_; }
  // Times a drain found a thread of the process waiting for room in its ring
  // (the launcher had fallen behind) since the last call.
  uint64_t TakeProducerWaits() { return std::exchange(producer_waits_, 0); }
  // The seq the next record emitted will have.
  uint64_t next_seq() const { return next_seq_; }
  // Frees the region's pages but the header's, after telling the producers
  // the launcher is gone (the file is unlinked; a process that keeps its
  // mapping, as an attached one does, keeps only the addresses). Call after
  // the last Emit.
  void ReleaseMemory();

 private:
  RegionReader(std::string path, RegionView view, int fd)
      : path_(std::move(path)), view_(view), fd_(fd) {}
  // Drain() for one ring (its bit is set in slots_in_use, or it is slot 0).
  size_t DrainSlot(uint32_t slot, bool all);

  struct Front {
    uint64_t seq;
    uint32_t slot;
    bool operator>(const Front& o) const { return seq > o.seq; }
  };

  std::string path_;
  RegionView view_;
  int fd_;  // the region file, open while the reader lives (see above)
  // Records taken from a ring and not yet emitted: records[head..] (a vector
  // refilled in bulk, so draining is a memcpy per ring, not a push per record).
  struct Queue {
    std::vector<RawRecord, base::LargeBufferAllocator<RawRecord>> records;
    size_t head = 0;
    bool empty() const { return head == records.size(); }
    const RawRecord& front() const { return records[head]; }
    void pop_front(size_t n = 1) {
      head += n;
      if (head == records.size()) {
        records.clear();
        head = 0;
      }
    }
  };
  std::vector<Queue> queues_ = std::vector<Queue>(kSlots);
  std::priority_queue<Front, std::vector<Front>, std::greater<Front>> fronts_;
  std::vector<bool> in_heap_ = std::vector<bool>(kSlots, false);
  size_t queued_ = 0;
  uint64_t next_seq_ = 1;
  uint64_t stalled_since_ns_ = 0;
  uint64_t skipped_seqs_ = 0;
  uint64_t producer_waits_ = 0;
  uint32_t modules_read_ = 0;
};

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_REGION_READER_H_
