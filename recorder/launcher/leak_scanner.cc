// Answering a leak scan request (leak_scanner.h).
#include "recorder/launcher/leak_scanner.h"

#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <climits>

#include "recorder/launcher/leak_roots.h"
#include "recorder/launcher/process_memory.h"
#include "recorder/launcher/process_stop.h"
#include "recorder/launcher/signal_context.h"
#include "recorder/leakscan/leak_graph.h"
#include "recorder/leakscan/vtable_oracle.h"

namespace heaprec::recorder::launcher {
namespace {

uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// No thread is between reading the seq mode and storing a solo count
// (seq_counter.h): with every thread stopped, the count may be moved.
bool SeqQuiet(const RegionHeader& h) {
  const uint32_t mode = h.seq_mode.load(std::memory_order_acquire);
  if (mode == kSeqSwitching) return false;
  return mode == kSeqShared || h.solo_busy.load(std::memory_order_acquire) == 0;
}

// The next seq, taken for the scan (every thread stopped and quiet).
uint64_t ReserveSeq(RegionHeader& h) {
  if (h.seq_mode.load(std::memory_order_acquire) == kSeqShared) {
    return h.next_seq.fetch_add(1, std::memory_order_acq_rel);
  }
  const uint64_t seq = h.solo_seq.load(std::memory_order_acquire);
  h.solo_seq.store(seq + 1, std::memory_order_release);
  return seq;
}

// "the process was ending on SIGSEGV (signal 11)".
std::string FatalSignalWords(int sig) {
  const char* name = sigabbrev_np(sig);
  return std::string("the process was ending on SIG") + (name != nullptr ? name : "?") +
         " (signal " + std::to_string(sig) + ")";
}

void WakeAsker(RegionHeader& h) {
  h.scans_done.fetch_add(1, std::memory_order_acq_rel);
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&h.scans_done), FUTEX_WAKE, INT_MAX, nullptr,
          nullptr, 0);
}

// glibc malloc keeps pointers to chunk headers in its own state (the top
// chunk, bins in libc's data): the header of the chunk after a live block
// lies inside the block's last 8 bytes when the block's size fills its chunk
// (e.g. malloc(24)), and such a pointer is no pointer of the program's
// (under valgrind there is no glibc malloc at all). The chunk after block b
// starts at b - 16 + request2size(size).
class GlibcChunkHeaders : public leakscan::PointerFilter {
 public:
  bool Ignore(uint64_t value, const leakscan::BlockRef& hit) const override {
    const uint64_t padded = (hit.size + 8 + 15) & ~uint64_t{15};
    return value == hit.address - 16 + (padded < 32 ? 32 : padded);
  }
};

// Whether the program allocates with glibc's malloc (no other allocator
// mapped): only then are its chunk headers filtered.
bool UsesGlibcMalloc(const std::vector<Mapping>& maps) {
  for (const Mapping& m : maps) {
    for (const char* other : {"jemalloc", "tcmalloc", "mimalloc", "hoard", "snmalloc"}) {
      if (m.path.find(other) != std::string::npos) return false;
    }
  }
  return true;
}

format::LeakKind ToFormat(leakscan::LeakKind k) {
  switch (k) {
    case leakscan::LeakKind::kDefinitelyLost:
      return format::LeakKind::kDefinite;
    case leakscan::LeakKind::kIndirectlyLost:
      return format::LeakKind::kIndirect;
    case leakscan::LeakKind::kPossiblyLost:
      return format::LeakKind::kPossible;
    case leakscan::LeakKind::kStillReachable:
      return format::LeakKind::kReachable;
  }
  return format::LeakKind::kUnknown;
}

struct Live {
  uint64_t address, size, block;
};

// The scan's blocks in block order, with their kinds and retaining roots;
// the roots that retain something, numbered anew.
void FillScan(const std::vector<Live>& live, const leakscan::LeakScanResult& result,
              const Roots& roots, format::LeakScan* scan) {
  const std::vector<format::LeakRoot>& all_roots = roots.roots;
  std::vector<uint32_t> new_id(all_roots.size() + 1, 0);
  for (const leakscan::RootId r : result.retaining_root) {
    if (r != leakscan::kNoRoot && r != leakscan::kSeveralRoots && r <= all_roots.size()) {
      new_id[r] = 1;
    }
  }
  for (size_t old = 1; old < new_id.size(); ++old) {
    if (new_id[old] == 0) continue;
    format::LeakRoot root = roots.Root(static_cast<leakscan::RootId>(old));
    root.id = new_id[old] = static_cast<uint32_t>(scan->roots.size() + 1);
    scan->roots.push_back(std::move(root));
  }
  std::vector<uint32_t> order(live.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return live[a].block < live[b].block; });
  for (const uint32_t i : order) {
    const leakscan::BlockVerdict& v = result.verdicts[i];
    const format::LeakKind kind = ToFormat(v.kind);
    scan->blocks.push_back(live[i].block);
    scan->kinds.push_back(
        format::LeakScan::PackKind(kind, static_cast<format::LeakHeuristic>(v.heuristic)));
    const leakscan::RootId r =
        result.retaining_root.empty() ? leakscan::kNoRoot : result.retaining_root[i];
    scan->block_roots.push_back(kind == format::LeakKind::kReachable &&
                                        r != leakscan::kSeveralRoots && r <= all_roots.size()
                                    ? new_id[r]
                                    : 0);
    scan->block_indirect.push_back(kind == format::LeakKind::kDefinite &&
                                           i < result.indirect_bytes.size()
                                       ? result.indirect_bytes[i]
                                       : 0);
  }
}

}  // namespace

const symbolize::ModuleData& LeakScanner::DataOf(const format::Module& m) {
  const std::string key = m.path + "@" + std::to_string(m.load_address);
  auto it = module_data_.find(key);
  if (it != module_data_.end()) return it->second;
  // A file without a build-id may be another one at its next load (a build
  // that relinks and runs its programs): read each time.
  if (m.build_id.empty()) {
    return module_data_.emplace(key, symbolize::ReadModuleData(m.path, m.load_address, m.build_id))
        .first->second;
  }
  const std::string file_key = m.path + '\n' + m.build_id;
  auto f = file_data_.find(file_key);
  if (f == file_data_.end()) {
    f = file_data_.emplace(file_key, symbolize::ReadModuleData(m.path, 0, m.build_id)).first;
  }
  return module_data_.emplace(key, symbolize::Rebased(f->second, m.load_address)).first->second;
}

void LeakScanner::Answer(pid_t pid, const ScanRequest& request, RegionReader& reader,
                         TraceBuilder& builder) {
  // One entry per module and load address: a session of many processes
  // would keep each one's copies for good (~90 KB a process). Emptied
  // between scans (DataOf's references live within one), refilled from
  // file_data_ by a copy.
  if (module_data_.size() > kKeptModuleData) module_data_.clear();
  RegionHeader& h = *reader.view().header();
  const uint64_t start = MonotonicNs();
  ProcessStop stop;
  std::string why;
  bool quiet = false;
  // Everything recorded before the stop goes into the trace first; a thread
  // stopped between taking a seq and writing its record leaves a gap: then
  // let the threads go for a moment and stop them again.
  for (int attempt = 0; attempt < 50 && !quiet; ++attempt) {
    if (attempt > 0) {
      stop.Release();
      const timespec pause = {0, 1000 * 1000};
      nanosleep(&pause, nullptr);
    }
    const bool held = stop.Stop(pid, &why);
    reader.Drain(/*all=*/true);
    builder.PollModules();
    reader.Emit(builder, false, MonotonicNs());
    if (!held) break;
    quiet = reader.idle() && SeqQuiet(h);
  }

  format::LeakScan scan;
  scan.seq = quiet ? ReserveSeq(h) : builder.last_seq() + 1;
  scan.time_ns = MonotonicNs() - h.start_monotonic_ns;
  scan.thread = request.thread;
  scan.reason = request.reason;
  scan.label = request.label;
  if (request.fatal_signal != 0) scan.note = FatalSignalWords(request.fatal_signal);
  const auto approximate = [&scan](const std::string& why) {
    scan.status = format::LeakScan::Status::kApproximate;
    scan.note = scan.note.empty() ? why : scan.note + "; " + why;
  };
  if (!stop.held()) {
    approximate("the threads could not be stopped (" + why +
                "): their registers are unknown and their stacks were read whole while running");
  } else if (!quiet) {
    approximate("a thread stayed stopped in the middle of recording a call");
  }

  std::vector<Live> live;
  builder.ForEachLiveBlock([&](uint64_t address, uint64_t block, uint64_t size) {
    live.push_back({address, size, block});
  });
  std::sort(live.begin(), live.end(),
            [](const Live& a, const Live& b) { return a.address < b.address; });
  std::vector<leakscan::LiveBlock> blocks(live.size());
  for (size_t i = 0; i < live.size(); ++i) blocks[i] = {live[i].address, live[i].size};

  std::string error;
  const std::vector<Mapping> maps = ReadMappings(pid, &error);
  std::vector<ScanThread> threads;
  for (const StoppedThread& t : stop.threads()) {
    const uint32_t index = builder.ThreadOfTid(t.tid);
    threads.push_back({t.tid, index, builder.ThreadName(index), t.regs});
  }
  // A fatal signal's scan: the thread that asked as the signal found it
  // (signal_context.h), its registers the program's, not left out.
  ProcessMemory memory(pid);
  bool asker_as_interrupted = false;
  if (request.context != 0) {
    for (ScanThread& t : threads) {
      if (t.tid == request.tid) {
        asker_as_interrupted = SignalContextRegs(memory, request.context, &t.regs);
      }
    }
  }
  RootsInput in;
  in.mappings = maps;
  in.blocks = blocks;
  in.threads = threads;
  in.exiting_tid =
      request.reason == format::LeakScan::Reason::kExit && !asker_as_interrupted ? request.tid : 0;
  in.excluded_prefixes = excluded_;
  for (uint32_t i = 0; i < h.own_memory_count && i < 4; ++i) {
    in.excluded_ranges.emplace_back(h.own_memory[i].start, h.own_memory[i].end);
  }
  in.modules = builder.modules();
  in.module_data = [this](const format::Module& m) -> const symbolize::ModuleData& {
    return DataOf(m);
  };
  const Roots roots = BuildRoots(in);

  leakscan::SegmentVtableOracle vtables(roots.segments, &memory);
  const bool segments_ok = leakscan::SegmentVtableOracle::CheckSegments(roots.segments).empty();
  GlibcChunkHeaders chunk_headers;
  leakscan::LeakScanInput input;
  input.blocks = blocks;
  input.root_ranges = roots.ranges;
  input.root_values = roots.values;
  input.memory = &memory;
  input.vtables = segments_ok ? &vtables : nullptr;
  input.filter = UsesGlibcMalloc(maps) ? &chunk_headers : nullptr;
  leakscan::LeakScanResult result;
  const bool classified =
      !maps.empty() && leakscan::ClassifyLeaks(input, leakscan::LeakScanOptions(), &result, &error);
  stop.Release();
  scan.pause_ns = MonotonicNs() - start;
  // Its memory is read: the thread that asked may go on (at the exit, end
  // the process) while the scan is written.
  WakeAsker(h);
  if (classified) {
    FillScan(live, result, roots, &scan);
    scan.bytes_scanned = result.stats.root_bytes_read + result.stats.block_bytes_read;
  } else {
    scan.status = format::LeakScan::Status::kNotDone;
    scan.note = "the scan failed: " + error;
  }
  builder.AddLeakScan(scan);
}

}  // namespace heaprec::recorder::launcher
