// TraceBuilder: turns one region's records, in seq order, into a trace file:
// threads get dense indexes, shared stack entries become nodes of the trace's
// stack tree, markers get their labels, modules come from the region's log.
// Every distinct return address is symbolized with libdw (DwarfSymbolizer)
// on a BackgroundSymbolizer thread as soon as its module is known, while the
// process runs. When the process is gone, Finish() writes out the chunk of
// the last events, symbolizes what is left, and writes the symbols (in
// address order) with the End record and the recorder's counters.
//
// Not thread-safe; allocates. Used by the launcher, one per process image.
#ifndef HEAPREC_RECORDER_LAUNCHER_TRACE_BUILDER_H_
#define HEAPREC_RECORDER_LAUNCHER_TRACE_BUILDER_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/open_table.h"
#include "format/byte_io.h"
#include "format/trace_writer.h"
#include "recorder/launcher/background_symbolizer.h"
#include "recorder/launcher/node_table.h"
#include "recorder/launcher/region_reader.h"

namespace heaprec::recorder::launcher {

// A leak scan the process asked for (kLeakScanRequest), to be answered by
// the launcher (leak_scanner.h).
struct ScanRequest {
  uint64_t seq = 0;
  uint32_t thread = 0;  // the asking thread's index
  int32_t tid = 0;
  format::LeakScan::Reason reason = format::LeakScan::Reason::kUnknown;
  std::string label;     // "" for the scan at the end
  int fatal_signal = 0;  // the signal the process is ending on; 0 = none
  uint64_t context = 0;  // that signal's ucontext_t in the process; 0 = none
};

class TraceBuilder final : public RecordSink {
 public:
  // Creates the trace file at path (which must not exist); keep_addresses:
  // store every block's address (else frees name blocks only); parent_trace:
  // the trace of the image that started this one ("" none). On failure
  // returns nullptr with *error set.
  static std::unique_ptr<TraceBuilder> Create(RegionReader* region, const std::string& path,
                                              bool keep_addresses, const std::string& parent_trace,
                                              std::string* error);

  void OnRecord(uint32_t slot, const RawRecord& record) override;
  void Prefetch(const RawRecord& record) override;
  // RecordSink's loop, with the calls direct, and hints only while the
  // block table is large (TraceWriter::PrefetchPays).
  void OnRun(uint32_t slot, const RawRecord* first, size_t n, const RawRecord* queued_end) override;
  // Adds modules logged since the last call.
  void PollModules();
  // Writes what is buffered if the last flush is older than a second.
  void MaybeFlush(uint64_t now_ns);
  // The writer's level from the next chunk on (TraceWriter::SetFastCompression).
  void SetFastCompression(bool fast) { writer_->SetFastCompression(fast); }
  // Symbols and End; closes the file. exit_status: wait status or -1;
  // replaced_by_exec: the image exec'd another program. Without a scan at
  // the process's end, a LeakScan that says why comes first (scans_on:
  // heaprec scans at all).
  bool Finish(int exit_status, bool replaced_by_exec, bool scans_on = true);

  // An RSS sample taken when the region's next seq was sample.seq: held
  // until every record before that seq is written (OnRecord writes it
  // before the first record at or past it; WriteRssSamples before next_seq).
  void AddRssSample(const format::RssSample& sample) {
    rss_pending_.push_back(sample);
    next_rss_seq_ = std::min(next_rss_seq_, rss_pending_[rss_written_].seq);
  }
  // Writes the held samples whose seq is at most next_seq (the seq of the
  // next record to come: every record before it is written).
  void WriteRssSamples(uint64_t next_seq);

  // Leak scans: the requests not yet answered, oldest first.
  bool has_scan_request() const { return !scan_requests_.empty(); }
  ScanRequest TakeScanRequest();
  // Writes a scan (and, for one asked for with a label, a marker at its seq).
  void AddLeakScan(const format::LeakScan& scan);
  // What the scan needs from the trace so far.
  template <typename F>
  void ForEachLiveBlock(F&& f) const {
    writer_->ForEachLiveBlock(f);
  }
  const std::vector<format::Module>& modules() const { return modules_; }
  // The trace's index of the thread with this tid (0 if unknown) and the
  // name it was last given.
  uint32_t ThreadOfTid(int32_t tid) const;
  std::string ThreadName(uint32_t thread) const;
  uint64_t last_seq() const { return last_seq_; }

  const std::string& path() const { return path_; }
  const format::ProcessInfo& process() const { return process_; }
  const format::EndRecord& totals() const { return writer_->totals(); }
  // Allocations as heapreplay's summary counts them (valgrind's way: the End
  // record's, format::Event::CountsAsAllocation).
  uint64_t allocations() const { return writer_->totals().allocations; }
  // Bytes live after the events so far, and their peak (TraceWriter's).
  uint64_t live_bytes() const { return writer_->live_bytes(); }
  uint64_t peak_bytes() const { return writer_->peak_bytes(); }
  uint64_t bytes_written() const { return writer_->bytes_written(); }
  size_t distinct_stacks() const { return distinct_stacks_; }
  const std::string& error() const { return writer_->error(); }

 private:
  TraceBuilder(RegionReader* region, std::string path, std::unique_ptr<format::FdSink> sink,
               bool keep_addresses, const std::string& parent_trace);
  void OnControl(uint32_t slot, const RawRecord& r);
  // The trace's node of a shared stack id; NewStackNode the first time.
  uint32_t StackNode(uint32_t shared_id, uint64_t seq);
  uint32_t NewStackNode(uint32_t shared_id, uint64_t seq);
  // The module an address first seen at seq belongs to (see the .cc); with
  // settled = false only a module loaded by then and not unloaded, the one
  // answer that no module logged later can change; else 0.
  uint32_t ModuleOf(uint64_t address, uint64_t seq, bool settled) const;
  uint32_t LastModuleMapping(uint64_t address) const;
  void AddSymbols();
  format::EndRecord EndWithCounters(int exit_status) const;

  RegionReader* region_;
  std::string path_;
  format::ProcessInfo process_;
  std::unique_ptr<format::FdSink> sink_;
  std::unique_ptr<format::TraceWriter> writer_;

  std::vector<uint32_t> slot_thread_;                 // slot -> thread index
  std::unordered_map<int32_t, uint32_t> tid_thread_;  // latest index per tid
  uint32_t next_thread_ = 1;
  uint32_t shared_thread_ = 0;  // index for records of the shared ring

  // Shared id (an arena word offset, so sparse and up to 2^25) -> node id, 0
  // = not yet; in pages made on demand (one flat vector, grown and copied,
  // cost cppcheck's launcher 7% of its time in copies and page faults).
  static constexpr size_t kStackIdPage = 4096;
  std::vector<std::unique_ptr<uint32_t[]>> stack_ids_;
  size_t distinct_stacks_ = 0;
  std::vector<uint8_t> counted_;  // by node: a stack ending there was counted
  NodeTable nodes_;               // (parent, return address) -> node
  // The last stack turned into nodes, outermost frame first, and the node
  // each of its prefixes ends at: a new stack shares its outer frames with
  // it more often than not, and a prefix always ends at the same node, so
  // only the frames past the shared prefix are looked up in nodes_ (cppcheck:
  // the lookups, cache misses each, were 14% of the launcher's time).
  std::vector<uint64_t> last_frames_;
  std::vector<uint32_t> last_nodes_;
  // Distinct frame addresses -> the seq they were first met at, keyed by
  // address + 1 (OpenTable keys are non-zero; a damaged stack may hold 0).
  base::OpenTable<uint64_t> address_first_seq_;
  std::vector<uint64_t> unsent_;  // addresses not yet given to symbolizer_
  uint32_t next_node_ = 1;

  std::vector<format::Module> modules_;
  std::map<uint32_t, uint64_t> unload_seq_;  // module id -> seq of its unload
  BackgroundSymbolizer symbolizer_;
  uint64_t last_seq_ = 0;
  uint64_t last_time_ns_ = 0;
  uint64_t last_flush_ns_ = 0;
  uint64_t dropped_stacks_ = 0;
  std::vector<ScanRequest> scan_requests_;
  std::map<uint32_t, std::string> thread_names_;
  bool final_scan_written_ = false;
  bool detached_ = false;                       // the heaprec:detach marker was seen (heaprec -p)
  std::vector<format::RssSample> rss_pending_;  // seq order
  size_t rss_written_ = 0;                      // of rss_pending_
  uint64_t next_rss_seq_ = UINT64_MAX;          // rss_pending_[rss_written_].seq, if any
};

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_TRACE_BUILDER_H_
