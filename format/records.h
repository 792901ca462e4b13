// The records of a trace as plain C++ values: what TraceWriter takes and
// TraceReader hands out. format/FORMAT.md gives every field's meaning and unit;
// the names here match it.
//
// Plain data; these types allocate (std::string, std::vector) and so are for
// the launcher and the tools, never for the preload library's hot path.
#ifndef HEAPREC_FORMAT_RECORDS_H_
#define HEAPREC_FORMAT_RECORDS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "format/api.h"

namespace heaprec::format {

// One call of an allocation function. Which fields matter depends on the kind
// (KindOf(api)):
//   alloc:   address = the block returned (0: the call failed), size.
//   realloc: old_address = the block passed in (0: acts as malloc),
//            address = the block returned, size = the new size.
//            address 0 with size 0: old block freed (realloc(p, 0));
//            address 0 with size > 0: the call failed, old block unchanged.
//   free:    address = the block released (0: free(NULL)); size if the caller
//            named it (sized delete, free_sized), else 0.
// alignment is set for aligned APIs (HasAlignment), 0 otherwise.
//
// block and old_block name blocks by when they were made: the n-th block
// made in the trace (by an alloc, or a realloc that returned one) is block
// n, from 1; 0 = no block (a failed call, realloc(NULL, n), or an address the
// trace never saw allocated). Readers fill them; TraceWriter ignores them and
// derives them from the addresses. Format 2 traces keep addresses only when
// written with them (TraceWriter::Options::keep_addresses); without, address
// and old_address are 0 except for frees of blocks the trace never saw made.
// So "did the call return a block" is block != 0, not address != 0.
struct Event {
  uint64_t seq = 0;      // total order over the whole trace, >= 1
  uint64_t time_ns = 0;  // ns since ProcessInfo::start_monotonic_ns
  uint32_t thread = 0;   // ThreadInfo::thread
  Api api = Api::kMalloc;
  uint64_t address = 0;
  uint64_t size = 0;
  uint64_t alignment = 0;
  uint64_t old_address = 0;
  uint32_t stack = 0;      // StackNode id of the innermost frame; 0 = none
  uint64_t block = 0;      // alloc, realloc: the block returned; free: the block released
  uint64_t old_block = 0;  // realloc: the block passed in
  // Filled by readers, never written: in a sampled trace
  // (ProcessInfo::sample_rate), the allocations an event that made a block
  // stands for (format/sampling.h); 1 in exact traces and for every other
  // event.
  double weight = 1.0;

  constexpr EventKind kind() const { return KindOf(api); }

  // What an event means, decided here once for every analysis
  // (format/FORMAT.md, "Kinds and the meaning of address and size"; how the
  // recorder writes a realloc as one or two events: Realloc in
  // recorder/preload/hooks_malloc.cc). A block is named by block or
  // old_block when the trace saw it made, else only by its address.

  // free(NULL): a free that names no block, known or not. (heaprec's
  // recorder does not record it; other writers may.)
  constexpr bool IsNullFree() const {
    return kind() == EventKind::kFree && block == 0 && address == 0;
  }
  // A realloc that was passed a block (old_block, or only old_address for a
  // block the trace never saw made): not realloc(NULL, n).
  constexpr bool HasOldBlock() const {
    return kind() == EventKind::kRealloc && (old_block != 0 || old_address != 0);
  }
  // A realloc passed no block: realloc(NULL, n), or the second half of a
  // moved realloc. It only allocates: block is the new block, 0 if the call
  // failed.
  constexpr bool IsAllocatingRealloc() const {
    return kind() == EventKind::kRealloc && old_block == 0 && old_address == 0;
  }
  // A realloc that released its old block and returned none: realloc(p, 0)
  // (glibc frees p), or the first half of a moved realloc (the old block,
  // freed inside the call).
  constexpr bool IsFreeingRealloc() const { return HasOldBlock() && block == 0 && size == 0; }
  // A realloc of a block that failed: no block returned for a size > 0, so
  // the old block stays live, unchanged. (A failed realloc(NULL, n) is an
  // IsAllocatingRealloc() with block 0.)
  constexpr bool IsFailedRealloc() const { return HasOldBlock() && block == 0 && size > 0; }
  // A realloc of no block that returned one: realloc(NULL, n), or the second
  // half of a moved realloc. The recorder writes a move as two events: the
  // first half (an IsFreeingRealloc()), then, as the calling thread's next
  // event, this one with the same api and stack; only the thread's previous
  // event tells the two cases apart.
  constexpr bool CouldBeMoveSecondHalf() const { return IsAllocatingRealloc() && block != 0; }

  // Calls as valgrind's "total heap usage" and heaptrack's "calls to
  // allocation functions" count them: every call that returned a block is
  // an allocation (malloc & co, every realloc that returned one, a resize in
  // place too, and the new half of a moved one); every free of a block is a
  // free (not free(NULL)), and so is every realloc of a block that released
  // it (resized in place, moved, realloc(p, 0)). A failed call is neither.
  // The writer (with or without block numbers) and every analysis count
  // with these, so heaprec's closing line and heapreplay agree.
  constexpr bool CountsAsAllocation() const {
    return (kind() == EventKind::kAlloc || kind() == EventKind::kRealloc) &&
           (block != 0 || address != 0);
  }
  constexpr bool CountsAsFree() const {
    if (kind() == EventKind::kFree) return block != 0 || address != 0;
    return HasOldBlock() && (block != 0 || address != 0 || size == 0);
  }

  friend bool operator==(const Event&, const Event&) = default;
};

// One frame of the stack table: stacks form a tree from the outermost frame
// (parent 0) towards the caller of the allocation function. Ids are dense from
// 1, and a node's parent always has a smaller id.
struct StackNode {
  uint32_t id = 0;
  uint32_t parent = 0;
  uint64_t address = 0;  // return address, absolute
  friend bool operator==(const StackNode&, const StackNode&) = default;
};

struct MappedRange {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t file_offset = 0;
  friend bool operator==(const MappedRange&, const MappedRange&) = default;
};

struct Module {
  uint32_t id = 0;
  std::string path;
  std::string build_id;  // raw bytes
  uint64_t load_address = 0;
  std::vector<MappedRange> ranges;
  uint64_t seq = 0;
  friend bool operator==(const Module&, const Module&) = default;
};

struct ModuleUnload {
  uint32_t id = 0;
  uint64_t seq = 0;
  friend bool operator==(const ModuleUnload&, const ModuleUnload&) = default;
};

struct ThreadInfo {
  uint32_t thread = 0;
  int32_t tid = 0;
  std::string name;
  uint64_t seq = 0;
  friend bool operator==(const ThreadInfo&, const ThreadInfo&) = default;
};

struct Marker {
  uint64_t seq = 0;
  uint64_t time_ns = 0;
  uint32_t thread = 0;
  std::string label;
  friend bool operator==(const Marker&, const Marker&) = default;
};

struct SourceFrame {
  std::string function;
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;
  friend bool operator==(const SourceFrame&, const SourceFrame&) = default;
};

// address -> frames, innermost inlined frame first, the real function last.
struct Symbol {
  uint64_t address = 0;
  uint32_t module = 0;
  std::vector<SourceFrame> frames;
  friend bool operator==(const Symbol&, const Symbol&) = default;
};

// ProcessInfo::clock of a trace recorded with heaprec --precise-times: event
// times are program time, CLOCK_MONOTONIC less the thread's earlier time
// inside recorded calls (recorder/preload/record_clock.h; FORMAT.md).
inline constexpr char kProgramTimeClock[] = "CLOCK_MONOTONIC minus calls";

struct ProcessInfo {
  std::string program;
  std::vector<std::string> args;
  int32_t pid = 0;
  int32_t ppid = 0;
  uint64_t start_realtime_ns = 0;
  uint64_t start_monotonic_ns = 0;
  std::string clock = "CLOCK_MONOTONIC";
  uint32_t page_size = 0;
  std::string recorder;
  std::string hostname;
  uint64_t parent_trace_seq = 0;
  // 3.2: the trace of the image that started this one, as heaprec named it
  // (FORMAT.md, "Process"); empty for the first process or an untraced parent.
  std::string parent_trace;
  // 3.3: heaprec --sample-rate: the mean bytes between recorded allocations
  // (format/sampling.h); 0 = every call was recorded (and in older traces).
  uint64_t sample_rate = 0;
  // 3.3: recording began when the process did (false: heaprec
  // --start-paused, or attached to a running process). With the switch
  // markers (format/switch_markers.h) it says whether the trace saw every
  // block made so far: analyzers/live_heap.h's RecordedWholeLife.
  bool from_start = true;
  friend bool operator==(const ProcessInfo&, const ProcessInfo&) = default;
};

// A reachability scan of the process's memory (3.1; FORMAT.md, "Leak
// scans"): every block live at `seq` classified as valgrind memcheck does.
enum class LeakKind : uint8_t {
  kUnknown = 0,    // not scanned (a trace without scans, or a block made later)
  kDefinite = 1,   // definitely lost: no pointer to it at all
  kIndirect = 2,   // indirectly lost: reached only from lost blocks
  kPossible = 3,   // possibly lost: reached only through interior pointers
  kReachable = 4,  // still reachable: a chain of start pointers from a root
};
// The heuristic that accepted an interior pointer as a start pointer.
enum class LeakHeuristic : uint8_t {
  kNone = 0,
  kStdString = 1,
  kLength64 = 2,
  kNewArray = 3,
  kMultipleInheritance = 4,
};
enum class LeakRootKind : uint8_t {
  kUnknown = 0,
  kGlobal = 1,      // a global or static variable of a module
  kModuleData = 2,  // a module's writable data outside any named variable
  kStack = 3,       // a thread's stack
  kRegisters = 4,   // a thread's registers
  kTls = 5,         // thread-local storage
  kAnonymous = 6,   // an anonymous mapping that holds no block
  kMapping = 7,     // another writable mapping (file-backed, shared memory)
};

struct LeakRoot {
  uint32_t id = 0;  // from 1 within its scan; 0 = several roots
  LeakRootKind kind = LeakRootKind::kUnknown;
  std::string name;     // "g_cache", "stack of thread 2 (worker)", ...
  uint32_t module = 0;  // Module::id of a global, else 0
  uint32_t thread = 0;  // ThreadInfo::thread of a stack, registers or TLS, else 0
  uint64_t address = 0;
  uint64_t size = 0;
  friend bool operator==(const LeakRoot&, const LeakRoot&) = default;
};

struct LeakScan {
  enum class Reason : uint8_t { kUnknown = 0, kExit = 1, kRequest = 2, kSignal = 3 };
  enum class Status : uint8_t { kDone = 0, kApproximate = 1, kNotDone = 2 };
  uint64_t seq = 0;  // sorts before the event with this seq, as a Marker
  uint64_t time_ns = 0;
  uint32_t thread = 0;  // the thread that asked
  Reason reason = Reason::kUnknown;
  Status status = Status::kDone;
  std::string note;   // why approximate or not done; the fatal signal it was made at
  std::string label;  // the marker label of a scan asked for
  std::vector<LeakRoot> roots;
  // One entry per block live at seq, blocks increasing: its kind
  // (kinds[i] & 7, a LeakKind) and heuristic (kinds[i] >> 3, a
  // LeakHeuristic), and for a still-reachable block the LeakRoot::id that
  // retains it (0 = several roots; 0 for the other kinds).
  std::vector<uint64_t> blocks;
  std::vector<uint8_t> kinds;
  std::vector<uint32_t> block_roots;
  // Per block: for a definitely lost one, the bytes of the blocks lost only
  // through it (memcheck's indirect bytes of its clique); 0 for the others.
  std::vector<uint64_t> block_indirect;
  uint64_t bytes_scanned = 0;
  uint64_t pause_ns = 0;
  // A scan written in parts (FORMAT.md): this is part `part`; more = another
  // follows. Readers deliver each part; Analysis joins them.
  uint32_t part = 0;
  bool more = false;

  LeakKind KindAt(size_t i) const { return static_cast<LeakKind>(kinds[i] & 7); }
  LeakHeuristic HeuristicAt(size_t i) const { return static_cast<LeakHeuristic>(kinds[i] >> 3); }
  static uint8_t PackKind(LeakKind k, LeakHeuristic h) {
    return static_cast<uint8_t>(static_cast<uint8_t>(k) | (static_cast<uint8_t>(h) << 3));
  }
  friend bool operator==(const LeakScan&, const LeakScan&) = default;
};

// 3.4: the process's resident memory at one moment, as the launcher read it
// from /proc/PID/status (format/FORMAT.md, "RSS samples"). Bytes (the file
// stores KiB, the kernel's unit).
struct RssSample {
  uint64_t seq = 0;          // sorts before the event with this seq
  uint64_t time_ns = 0;      // since ProcessInfo::start_monotonic_ns (µs resolution)
  uint64_t anon_bytes = 0;   // RssAnon: the heap, stacks, anonymous mappings
  uint64_t file_bytes = 0;   // RssFile: mapped files (code, data files)
  uint64_t shmem_bytes = 0;  // RssShmem: shared memory (tmpfs, shm, shared anonymous)
  // Resident memory of no known kind: a heaptrack recording's samples
  // (format/heaptrack_reader.h: statm's count, anonymous and file pages
  // together). Never in a heaprec trace (the file has no column for it).
  uint64_t unsplit_bytes = 0;
  uint64_t total_bytes() const { return anon_bytes + file_bytes + shmem_bytes + unsplit_bytes; }
  friend bool operator==(const RssSample&, const RssSample&) = default;
};

// Totals and counters, written once in the last chunk. TraceWriter fills the
// totals it can count itself (events, allocations, ...); the recorder adds
// exit_status and counters of what it could not record.
struct EndRecord {
  uint64_t events = 0;
  uint64_t allocations = 0;
  uint64_t frees = 0;
  uint64_t reallocs = 0;
  uint64_t bytes_allocated = 0;
  uint64_t stack_nodes = 0;
  uint64_t chunks = 0;
  uint64_t end_time_ns = 0;
  int32_t exit_status = -1;
  std::vector<std::pair<std::string, uint64_t>> counters;
  // The writer symbolized every return address of the stack table and wrote
  // a Symbol for each it could name: the others have no known name (2.1).
  bool symbols_complete = false;
  // 3.2: the image did not end: it exec'd another program (exit_status -1).
  bool replaced_by_exec = false;
  friend bool operator==(const EndRecord&, const EndRecord&) = default;
};

// How a process image ended, decoded from EndRecord::exit_status (a wait
// status; -1 unknown): the code it exited with, or -1 if it did not exit...
inline int ExitCodeOf(int32_t wait_status) {
  if (wait_status < 0 || (wait_status & 0x7f) != 0) return -1;
  return (wait_status >> 8) & 0xff;
}
// ... and the signal that killed it, or 0 if none did.
inline int TermSignalOf(int32_t wait_status) {
  if (wait_status < 0) return 0;
  const int sig = wait_status & 0x7f;
  return sig != 0 && sig != 0x7f ? sig : 0;
}

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_RECORDS_H_
