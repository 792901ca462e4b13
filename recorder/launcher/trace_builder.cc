// TraceBuilder: region records -> format records -> TraceWriter.
#include "recorder/launcher/trace_builder.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "format/api.h"
#include "format/format_version.h"
#include "format/switch_markers.h"

namespace heaprec::recorder::launcher {
namespace {

std::string Name16(uint64_t a, uint64_t b) {
  char buf[17] = {};
  std::memcpy(buf, &a, 8);
  std::memcpy(buf + 8, &b, 8);
  return std::string(buf, strnlen(buf, 16));
}

format::ProcessInfo ProcessOf(const RegionHeader& h) {
  format::ProcessInfo p;
  p.program = std::string(h.exe, strnlen(h.exe, kExeBytes));
  const uint32_t n = h.cmdline_bytes < kCmdlineBytes ? h.cmdline_bytes : kCmdlineBytes;
  for (uint32_t i = 0; i < n;) {
    const size_t len = strnlen(h.cmdline + i, n - i);
    p.args.emplace_back(h.cmdline + i, len);
    i += static_cast<uint32_t>(len) + 1;
  }
  p.pid = h.pid;
  p.ppid = h.ppid;
  p.start_realtime_ns = h.start_realtime_ns;
  p.start_monotonic_ns = h.start_monotonic_ns;
  p.clock = h.precise_times != 0 ? format::kProgramTimeClock : "CLOCK_MONOTONIC";
  p.page_size = h.page_size;
  p.recorder = std::string("heaprec ") + format::kToolsVersion;
  p.hostname = std::string(h.hostname, strnlen(h.hostname, sizeof(h.hostname)));
  p.parent_trace_seq = h.parent_fork_seq;
  p.sample_rate = h.sample_rate;
  // Started paused (heaprec --start-paused, or forked or exec'd while
  // paused) or attached to a running process (heaprec -p): the trace does
  // not see every block the process makes.
  p.from_start = h.started_paused == 0 && h.attached == 0;
  return p;
}

}  // namespace

std::unique_ptr<TraceBuilder> TraceBuilder::Create(RegionReader* region, const std::string& path,
                                                   bool keep_addresses,
                                                   const std::string& parent_trace,
                                                   std::string* error) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = path + ": cannot create: " + std::strerror(errno);
    return nullptr;
  }
  return std::unique_ptr<TraceBuilder>(new TraceBuilder(
      region, path, std::make_unique<format::FdSink>(fd), keep_addresses, parent_trace));
}

TraceBuilder::TraceBuilder(RegionReader* region, std::string path,
                           std::unique_ptr<format::FdSink> sink, bool keep_addresses,
                           const std::string& parent_trace)
    : region_(region),
      path_(std::move(path)),
      process_(ProcessOf(region->header())),
      sink_(std::move(sink)),
      slot_thread_(kSlots, 0) {
  process_.parent_trace = parent_trace;
  format::TraceWriter::Options options;
  // Milliseconds: plenty for timelines (heaptrack keeps 10 ms); order comes
  // from seq, not time. Finer times cost trace bytes on every event.
  // heaprec --precise-times: microseconds of program time (the work between
  // a thread's calls; recorder/preload/record_clock.h).
  options.time_unit_ns = region->header().precise_times != 0 ? 1000 : 1000 * 1000;
  options.keep_addresses = keep_addresses;
  // 16 MiB of history: a loop's events repeat far apart. Each MiB of it is
  // fresh memory the launcher touches once, which costs ~2-3 ms here (page
  // faults in a VM) and crowds the caches its block table needs; 32 MiB saved
  // Python's trace 0.2% and cppcheck's 1.8%, and took 16 MiB more.
  options.window_log = 24;
  // zstd level 7 rather than 3: Python's trace 321 -> 304 KB, cppcheck's
  // 1004 -> 898 KB; the recorded programs' wall time did not move (the
  // launcher compresses on its own core; docs/BENCHMARKS.md).
  options.zstd_level = 7;
  // While the launcher falls behind, level 1 (Session's CompressionGovernor):
  // on tests/bench/churn, level 7 took 1.3 s of the launcher's 2.3 s.
  options.fast_zstd_level = 1;
  // A new zstd frame every GiB of chunks: heapreplay's trace index starts
  // decompressing at the frame before a moment instead of the trace's start.
  options.frame_bytes = uint64_t{1} << 30;
  writer_ = std::make_unique<format::TraceWriter>(sink_.get(), process_, options);
}

void TraceBuilder::WriteRssSamples(uint64_t next_seq) {
  while (rss_written_ < rss_pending_.size() && rss_pending_[rss_written_].seq <= next_seq) {
    writer_->AddRssSample(rss_pending_[rss_written_++]);
  }
  if (rss_written_ == rss_pending_.size()) {
    rss_pending_.clear();
    rss_written_ = 0;
  }
  next_rss_seq_ = rss_written_ < rss_pending_.size() ? rss_pending_[rss_written_].seq : UINT64_MAX;
}

void TraceBuilder::OnRecord(uint32_t slot, const RawRecord& r) {
  if (r.seq >= next_rss_seq_) WriteRssSamples(r.seq);
  last_seq_ = r.seq;
  last_time_ns_ = r.time_ns;
  const auto api = static_cast<format::Api>(r.api);
  if (!format::IsValid(api)) {
    OnControl(slot, r);  // or a damaged record
    return;
  }
  format::Event e;
  e.seq = r.seq;
  e.time_ns = r.time_ns;
  e.thread = slot == 0 ? shared_thread_ : slot_thread_[slot];
  e.api = api;
  e.address = r.address;
  e.size = r.size;
  e.alignment = format::HasAlignment(api) ? r.extra : 0;
  e.old_address = format::HasOldAddress(api) ? r.extra : 0;
  e.stack = r.stack != 0 ? StackNode(r.stack, r.seq) : 0;
  writer_->AddEvent(e);
}

// The records that are not events, apart: the events' path stays small.
void TraceBuilder::OnControl(uint32_t slot, const RawRecord& r) {
  switch (r.api) {
    case kThreadStart: {
      const auto tid = static_cast<int32_t>(r.address);
      if (slot == 0) {
        if (shared_thread_ == 0) {
          shared_thread_ = next_thread_++;
          writer_->AddThread({shared_thread_, 0, "(threads sharing a ring)", r.seq});
        }
        tid_thread_[tid] = shared_thread_;
        return;
      }
      const uint32_t index = next_thread_++;
      slot_thread_[slot] = index;
      tid_thread_[tid] = index;
      writer_->AddThread({index, tid, Name16(r.size, r.extra), r.seq});
      thread_names_[index] = Name16(r.size, r.extra);
      return;
    }
    case kThreadName: {
      const auto tid = static_cast<int32_t>(r.address);
      const auto it = tid_thread_.find(tid);
      if (it != tid_thread_.end() && it->second != shared_thread_) {
        writer_->AddThread({it->second, tid, Name16(r.size, r.extra), r.seq});
        thread_names_[it->second] = Name16(r.size, r.extra);
      }
      return;
    }
    case kMarker: {
      std::string label = region_->Label(r.address);
      if (label == format::kDetachLabel) detached_ = true;
      writer_->AddMarker({r.seq, r.time_ns, slot_thread_[slot], std::move(label)});
      return;
    }
    case kLeakScanRequest:
      scan_requests_.push_back({r.seq, slot == 0 ? shared_thread_ : slot_thread_[slot],
                                static_cast<int32_t>(r.address),
                                static_cast<format::LeakScan::Reason>(r.size & 0xff),
                                r.extra == UINT64_MAX ? "" : region_->Label(r.extra),
                                static_cast<int>((r.size >> 8) & 0xff), r.size >> 16});
      return;
    default:  // kNop, or a damaged record
      return;
  }
}

void TraceBuilder::OnRun(uint32_t slot, const RawRecord* first, size_t n,
                         const RawRecord* queued_end) {
  if (!writer_->PrefetchPays()) {
    for (const RawRecord* r = first; r != first + n; ++r) OnRecord(slot, *r);
    return;
  }
  for (const RawRecord* r = first; r != first + n; ++r) {
    if (queued_end - r > static_cast<std::ptrdiff_t>(kPrefetchAhead)) Prefetch(r[kPrefetchAhead]);
    OnRecord(slot, *r);
  }
}

void TraceBuilder::Prefetch(const RawRecord& r) {
  const auto api = static_cast<format::Api>(r.api);
  if (format::IsValid(api)) writer_->Prefetch(format::HasOldAddress(api) ? r.extra : r.address);
}

inline uint32_t TraceBuilder::StackNode(uint32_t shared_id, uint64_t seq) {
  const size_t page = shared_id / kStackIdPage;
  if (page < stack_ids_.size() && stack_ids_[page] != nullptr) {
    if (const uint32_t node = stack_ids_[page][shared_id % kStackIdPage]) return node;
  }
  return NewStackNode(shared_id, seq);
}

uint32_t TraceBuilder::NewStackNode(uint32_t shared_id, uint64_t seq) {
  const size_t page = shared_id / kStackIdPage;
  const size_t at = shared_id % kStackIdPage;
  std::vector<uint64_t> frames;
  if (!region_->ReadStack(shared_id, &frames)) {
    ++dropped_stacks_;
    return 0;
  }
  // Outermost first; the prefix shared with the last stack has its nodes.
  std::reverse(frames.begin(), frames.end());
  size_t same = 0;
  while (same < frames.size() && same < last_frames_.size() && frames[same] == last_frames_[same]) {
    ++same;
  }
  last_frames_.resize(same);
  last_nodes_.resize(same);
  uint32_t parent = same > 0 ? last_nodes_[same - 1] : 0;
  for (auto it = frames.begin() + static_cast<std::ptrdiff_t>(same); it != frames.end(); ++it) {
    bool inserted = false;
    const uint32_t node = nodes_.FindOrInsert(parent, *it, next_node_, &inserted);
    if (inserted) {
      writer_->AddStackNode({next_node_, parent, *it});
      if (address_first_seq_.Get(*it + 1) == nullptr) {
        uint64_t unused;
        address_first_seq_.Put(*it + 1, seq, &unused);
        const uint32_t module = ModuleOf(*it, seq, /*settled=*/false);
        if (module != 0) {
          symbolizer_.Symbolize(*it, module);
        } else {
          unsent_.push_back(*it);
        }
      }
      ++next_node_;
    }
    parent = node;
    last_frames_.push_back(*it);
    last_nodes_.push_back(parent);
  }
  if (page >= stack_ids_.size()) stack_ids_.resize(page + 1);
  if (stack_ids_[page] == nullptr) stack_ids_[page] = std::make_unique<uint32_t[]>(kStackIdPage);
  stack_ids_[page][at] = parent;
  // The recorder may name one stack by several ids (stack_interner.h): count
  // the stacks, not the ids.
  if (parent >= counted_.size()) counted_.resize(parent + 1 + parent / 2, 0);
  if (counted_[parent] == 0) {
    counted_[parent] = 1;
    ++distinct_stacks_;
  }
  return parent;
}

void TraceBuilder::PollModules() {
  for (const ModuleRecord* m : region_->NewModules()) {
    if (m->kind == 2) {
      writer_->AddModuleUnload({m->id, m->seq});
      unload_seq_[m->id] = m->seq;
      continue;
    }
    format::Module mod;
    mod.id = m->id;
    mod.path = std::string(m->path, strnlen(m->path, kModulePathBytes));
    const uint32_t id_len = m->build_id_len <= sizeof(m->build_id) ? m->build_id_len : 0;
    mod.build_id.assign(reinterpret_cast<const char*>(m->build_id), id_len);
    mod.load_address = m->load_address;
    const uint32_t ranges = m->range_count <= kMaxModuleRanges ? m->range_count : 0;
    for (uint32_t i = 0; i < ranges; ++i) {
      mod.ranges.push_back({m->ranges[i].start, m->ranges[i].end, m->ranges[i].file_offset});
    }
    mod.seq = m->seq;
    writer_->AddModule(mod);
    symbolizer_.AddModule(mod);
    modules_.push_back(std::move(mod));
  }
}

void TraceBuilder::MaybeFlush(uint64_t now_ns) {
  if (now_ns - last_flush_ns_ >= 1000000000ull) {
    writer_->Flush();
    last_flush_ns_ = now_ns;
  }
}

// Picks, for an address first seen at seq, the module that held it then; else
// one loaded just after (a constructor running inside dlopen); else any.
// While the process runs (not settled) only the first answer counts: live
// modules never overlap, so the module that held the address at seq is the
// only one, whatever is logged later; the others wait for Finish.
uint32_t TraceBuilder::ModuleOf(uint64_t address, uint64_t seq, bool settled) const {
  uint32_t best = 0, later = 0, any = 0;
  for (const format::Module& m : modules_) {
    bool covers = false;
    for (const format::MappedRange& r : m.ranges) covers |= address >= r.start && address < r.end;
    if (!covers) continue;
    any = m.id;
    const auto unload = unload_seq_.find(m.id);
    const uint64_t until = unload == unload_seq_.end() ? UINT64_MAX : unload->second;
    if (m.seq <= seq && seq < until) best = m.id;
    if (m.seq > seq && later == 0) later = m.id;
  }
  if (!settled) return best;
  return best != 0 ? best : later != 0 ? later : any;
}

// The last module logged that maps the call before the return address,
// address - 1: what a reader finds for an address without a Symbol
// (analyzers::SymbolTable::ModuleOf's rule), or 0.
uint32_t TraceBuilder::LastModuleMapping(uint64_t address) const {
  for (auto it = modules_.rbegin(); it != modules_.rend(); ++it) {
    for (const format::MappedRange& r : it->ranges) {
      if (address - 1 >= r.start && address - 1 < r.end) return it->id;
    }
  }
  return 0;
}

// Gives the symbolizer what it has not had yet, then writes every address's
// symbol in address order. An address without frames (a stripped binary's
// static function) gets no Symbol (the End says the symbols are complete)
// unless its module differs from the one a reader finds by address alone:
// half of a Python trace's symbols were such empty records (~14 KB).
void TraceBuilder::AddSymbols() {
  for (uint64_t address : unsent_) {
    const uint64_t* first_seq = address_first_seq_.Get(address + 1);
    symbolizer_.Symbolize(address, ModuleOf(address, first_seq != nullptr ? *first_seq : 0, true));
  }
  unsent_.clear();
  std::map<uint64_t, format::Symbol> symbols = symbolizer_.Finish();
  // Every address given to the symbolizer, in address order (symbols is a std::map).
  for (const auto& [address, symbol] : symbols) {
    if (address_first_seq_.Get(address + 1) == nullptr) continue;
    if (symbol.frames.empty() && symbol.module == LastModuleMapping(address)) continue;
    writer_->AddSymbol(symbol);
  }
}

format::EndRecord TraceBuilder::EndWithCounters(int exit_status) const {
  const Counters& c = region_->header().counters;
  format::EndRecord end;
  end.end_time_ns = last_time_ns_;
  end.exit_status = exit_status;
  auto add = [&](const char* name, uint64_t v) { end.counters.emplace_back(name, v); };
  add("reentrant_calls", c.reentrant_calls.load());
  add("bootstrap_allocations", c.bootstrap_allocations.load());
  add("dropped_events", c.dropped_events.load());
  add("truncated_stacks", c.truncated_stacks.load());
  add("unwind_failures", c.unwind_failures.load());
  add("stack_table_full", c.stack_table_full.load());
  add("shared_ring_records", c.shared_ring_records.load());
  add("fork_window_calls", c.fork_window_calls.load());
  add("module_log_full", c.module_log_full.load());
  add("label_log_full", c.label_log_full.load());
  add("unwind_skipped", c.unwind_skipped.load());
  if (region_->header().sample_rate != 0) add("unkept_samples", c.unkept_samples.load());
  add("skipped_seqs", region_->skipped_seqs());
  add("unreadable_stacks", dropped_stacks_);
  end.symbols_complete = true;  // AddSymbols ran before
  return end;
}

ScanRequest TraceBuilder::TakeScanRequest() {
  ScanRequest r = std::move(scan_requests_.front());
  scan_requests_.erase(scan_requests_.begin());
  return r;
}

void TraceBuilder::AddLeakScan(const format::LeakScan& scan) {
  if (!scan.label.empty()) writer_->AddMarker({scan.seq, scan.time_ns, scan.thread, scan.label});
  writer_->AddLeakScan(scan);
  if (scan.reason == format::LeakScan::Reason::kExit) final_scan_written_ = true;
}

uint32_t TraceBuilder::ThreadOfTid(int32_t tid) const {
  const auto it = tid_thread_.find(tid);
  return it == tid_thread_.end() ? 0 : it->second;
}

std::string TraceBuilder::ThreadName(uint32_t thread) const {
  const auto it = thread_names_.find(thread);
  return it == thread_names_.end() ? "" : it->second;
}

namespace {

// Why a process's end was not scanned, from its wait status (-1: unknown).
// attached: heaprec -p's recording; detached: it ended at heaprec_detach.
std::string NoScanReason(int exit_status, bool replaced_by_exec, bool scans_on, bool attached,
                         bool detached) {
  if (detached) return "heaprec -p detached and the process ran on: what it holds is live";
  if (attached) return "heaprec -p makes no leak scan (attached to a running process)";
  if (!scans_on) return "leak scans are off (heaprec --no-leak-scan)";
  if (replaced_by_exec) return "the program replaced itself (exec)";
  if (exit_status == -1) {
    return "its end is unknown: it ended without passing heaprec's exit hooks (SIGKILL, a "
           "direct exit_group system call) and another process reaped it";
  }
  if (WIFSIGNALED(exit_status)) {
    const char* name = sigabbrev_np(WTERMSIG(exit_status));
    return std::string("killed by SIG") + (name != nullptr ? name : "?") + " (signal " +
           std::to_string(WTERMSIG(exit_status)) + ") before its end could be scanned";
  }
  return "ended without passing heaprec's exit hooks (quick_exit, a direct exit_group system "
         "call, or the launcher could not stop it)";
}

}  // namespace

bool TraceBuilder::Finish(int exit_status, bool replaced_by_exec, bool scans_on) {
  WriteRssSamples(UINT64_MAX);  // every record is written
  if (!final_scan_written_) {
    format::LeakScan none;
    none.seq = last_seq_ + 1;
    none.time_ns = last_time_ns_;
    none.reason = format::LeakScan::Reason::kExit;
    none.status = format::LeakScan::Status::kNotDone;
    none.note =
        process_.sample_rate != 0
            ? "a sample (heaprec --sample-rate) is not scanned for leaks"
            : NoScanReason(exit_status, replaced_by_exec, scans_on,
                           !process_.from_start && region_->header().attached != 0, detached_);
    AddLeakScan(none);
  }
  PollModules();
  // The events go to disk before symbolizing (seconds for large binaries), so
  // a launcher stopped meanwhile loses only the names, and a trace cut before
  // its end always keeps every event.
  writer_->Flush();
  AddSymbols();
  format::EndRecord end = EndWithCounters(exit_status);
  end.replaced_by_exec = replaced_by_exec;
  const bool ok = writer_->Finish(end);
  return sink_->Close() && ok;
}

}  // namespace heaprec::recorder::launcher
