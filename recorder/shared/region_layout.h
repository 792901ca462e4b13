// The memory a traced process shares with the heaprec launcher (one "region"
// per process image): a header, a module log, a marker-label log, the stack
// table and one ring of fixed-size records per thread slot.
//
// The traced process (recorder/preload) creates the region as a file in the
// session folder, maps it MAP_SHARED and writes; the launcher maps the same
// file and reads. Nothing is lost when the process dies, even by SIGKILL: the
// launcher still holds the mapping. The file is sparse: only touched pages
// cost memory.
//
// Both sides include this header. It holds only trivially constructible data
// and std::atomic, no allocation and no libstdc++ runtime, so the preload
// library may use it. Every size here is a capacity of the region; when one is
// exhausted the recorder counts what it could not record (Counters) instead of
// failing.
//
// Concurrency: the rings' protocol is in ring.h, their slots' life in
// ring_slots.h, the seq counter's in recorder/preload/seq_counter.h. Stack entries and module/label
// records are published with release stores before any event that names them, and read after the
// acquire load of a ring's head, so a reader that sees an event also sees what it names.
#ifndef HEAPREC_RECORDER_SHARED_REGION_LAYOUT_H_
#define HEAPREC_RECORDER_SHARED_REGION_LAYOUT_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "recorder/shared/ring.h"

namespace heaprec::recorder {

inline constexpr uint64_t kRegionMagic = 0x31474552'50414548ULL;  // "HEAPREG1"
inline constexpr uint32_t kRegionVersion = 12;

inline constexpr uint32_t kSlots = 512;  // rings (ring.h); slot 0 is shared
// The stack index (stack_interner.cc) grows by levels: level k is a table of
// 2^(kStackIndexFirstBits + k) slots, the levels laid end to end in
// kStackIndexSlots; a small first level keeps a program with few stacks in
// the cache (cppcheck: 55 ms faster with 1 MiB than with 8 MiB).
inline constexpr uint32_t kStackIndexFirstBits = 15;
inline constexpr uint32_t kStackIndexLevels = 7;  // up to 2^21 slots
inline constexpr uint32_t kStackIndexSlots =
    (1u << (kStackIndexFirstBits + kStackIndexLevels)) - (1u << kStackIndexFirstBits);
inline constexpr uint64_t kStackArenaWords = 1ull << 25;  // 256 MiB of frames
inline constexpr uint32_t kMaxDepth = 256;                // frames a stack may keep (--depth)
// Words of frames a stack entry may hold: kMaxDepth frames and, when the stack
// was cut there, format::kTruncatedFrameAddress as its outermost frame.
inline constexpr uint32_t kMaxStackFrames = kMaxDepth + 1;
inline constexpr uint32_t kModuleRecords = 4096;
inline constexpr uint32_t kMaxModuleRanges = 16;
inline constexpr uint32_t kModulePathBytes = 512;
inline constexpr uint32_t kLabelRecords = 8192;
inline constexpr uint32_t kLabelBytes = 120;
inline constexpr uint32_t kCmdlineBytes = 32768;
inline constexpr uint32_t kExeBytes = 4096;

// RegionHeader::recording_switch: whether allocations are recorded now
// (heaprec --start-paused, --start PID, --stop PID, --switch-signal). Bit 0
// is what was asked for (set: paused), bit 1 what the recorder did (set:
// paused, its "heaprec:stop" marker written). The launcher and the switch
// signal change bit 0 only (atomic or / and / xor); the recorder, on its next
// hook, moves bit 1 to match and writes the marker at that place in the seq
// order. Steady states are kSwitchRecording and kSwitchPaused.
inline constexpr uint32_t kSwitchRecording = 0;
inline constexpr uint32_t kSwitchPauseWanted = 1;
inline constexpr uint32_t kSwitchPausedNow = 2;
inline constexpr uint32_t kSwitchPaused = kSwitchPauseWanted | kSwitchPausedNow;

enum SeqMode : uint32_t {
  kSeqSolo = 0,       // one thread: solo_seq, plain increments
  kSeqSwitching = 1,  // a second thread is moving the count to next_seq
  kSeqShared = 2,     // next_seq.fetch_add for every thread
};

// A module (executable or shared object) seen loaded or unloaded.
struct ModuleRecord {
  std::atomic<uint32_t> ready;  // 1 once every other field is written
  uint32_t kind;                // 1 = loaded, 2 = unloaded
  uint32_t id;                  // dense from 1, as in the trace
  uint32_t build_id_len;
  uint64_t seq;           // seq of the first event after the change
  uint64_t load_address;  // load bias (dlpi_addr)
  uint8_t build_id[40];
  uint32_t range_count;
  uint32_t path_truncated;
  struct {
    uint64_t start, end, file_offset;
  } ranges[kMaxModuleRanges];
  char path[kModulePathBytes];
};

struct LabelRecord {
  std::atomic<uint32_t> ready;
  uint32_t thread_tid;
  char text[kLabelBytes];
};

// Counters of what the recorder could not record or had to change; they go
// into the trace's End record under these names (format/FORMAT.md).
struct Counters {
  std::atomic<uint64_t> reentrant_calls;
  std::atomic<uint64_t> bootstrap_allocations;
  std::atomic<uint64_t> dropped_events;
  std::atomic<uint64_t> truncated_stacks;
  std::atomic<uint64_t> unwind_failures;
  std::atomic<uint64_t> stack_table_full;
  std::atomic<uint64_t> shared_ring_records;
  std::atomic<uint64_t> fork_window_calls;
  std::atomic<uint64_t> module_log_full;
  std::atomic<uint64_t> label_log_full;
  std::atomic<uint64_t> unwind_skipped;
  // Sampling: sampled blocks the set of live samples had no room for
  // (recorder/preload/sampled_set.h); their frees are not recorded.
  std::atomic<uint64_t> unkept_samples;
};

struct RegionHeader {
  uint64_t magic;
  uint32_t version;
  std::atomic<uint32_t> ready;  // 1 once the header is filled
  int32_t pid;
  int32_t ppid;
  int32_t launcher_pid;
  uint32_t page_size;
  uint32_t max_depth;    // frames recorded per stack (--depth)
  uint32_t exec_serial;  // the <n> of the region file name "<pid>.<start ns>.<n>.region"
  // heaprec --sample-rate: the mean bytes between recorded allocations
  // (recorder/preload/sampler.h); 0 = every call is recorded.
  uint64_t sample_rate;
  uint64_t start_realtime_ns;
  uint64_t start_monotonic_ns;
  uint64_t parent_fork_seq;  // fork child: the parent's next seq when it forked
  // Fork child: start_monotonic_ns of the image that forked it (with ppid,
  // which region that was); 0 otherwise.
  uint64_t parent_start_ns;
  // The total order. While one thread alone has claimed a ring
  // (seq_mode kSeqSolo), it counts in solo_seq with plain loads and stores
  // (no locked instruction per record); the second thread to claim one
  // switches everyone to next_seq's fetch_add for good (seq_counter.h,
  // SwitchToSharedSeq). Both start at the region's first seq (1, or the
  // parent's next seq in a fork child).
  alignas(64) std::atomic<uint64_t> next_seq;
  std::atomic<uint32_t> claims;  // ClaimRing calls in this region
  // Written by the solo thread on every record; read once by the switcher.
  alignas(64) std::atomic<uint32_t> seq_mode;  // SeqMode
  std::atomic<uint32_t> solo_busy;             // 1 while the solo thread takes a seq
  std::atomic<uint64_t> solo_seq;
  // CLOCK_MONOTONIC - start_monotonic_ns as the launcher last went round its
  // loop (every 0.2 ms when idle); 0 until it adopted the region. Producers
  // take event times from it (record_clock.h NowNs); it shares its line with
  // launcher_gone, which they read on every call anyway.
  alignas(64) std::atomic<uint64_t> launcher_clock_ns;
  std::atomic<uint32_t> launcher_gone;  // producers stop recording when set
  std::atomic<uint32_t> exited;         // set by the process's exit path
  // How the process said it ends, for the launcher, which can waitpid only
  // its own child and orphans: exit_wait_status (a wait status: exit(n) is
  // n << 8, a fatal signal its number) is valid once exit_announced is 1
  // (stored after it, with release).
  std::atomic<int32_t> exit_wait_status;
  std::atomic<uint32_t> exit_announced;
  // kSwitch* above; producers read it on every call, in this line.
  std::atomic<uint32_t> recording_switch;
  // 1 if the image started paused, or the recording attached to it when it
  // ran already (heaprec -p): the trace does not cover its whole life
  // (format ProcessInfo::from_start false). Written before ready.
  uint32_t started_paused;
  uint32_t attached;
  // 1: heaprec --precise-times: records carry program time at 1 us
  // (recorder/preload/record_clock.h). Written before ready.
  uint32_t precise_times;
  alignas(64) std::atomic<uint64_t> stack_arena_used;  // words; starts at 1
  std::atomic<uint32_t> module_count;
  std::atomic<uint32_t> label_count;
  // Leak scans asked for (kLeakScanRequest records written) and done: the
  // launcher adds 1 to scans_done, a futex, and wakes the waiting threads
  // after each scan it answers.
  std::atomic<uint32_t> scans_requested;
  std::atomic<uint32_t> scans_done;
  std::atomic<uint32_t> rings_owned;          // thread rings owned now (slot 0 not counted)
  std::atomic<uint32_t> stack_index_level;    // the stack index's current level
  std::atomic<uint32_t> stack_index_entries;  // stacks inserted at that level (about)
  // Bit slot % 64 of word slot / 64: ring `slot` may hold records (set by
  // its owner right after claiming it, before its first record; cleared by
  // the launcher just before it frees the drained slot). The launcher goes
  // through these instead of reading every ring's state, each on a page
  // (and a TLB entry) of its own.
  alignas(64) std::atomic<uint64_t> slots_in_use[kSlots / 64];
  // The recorder's own memory in the process besides this region (its
  // unwinding tables and scratch, which hold copies of stack words): the
  // leak scan reads none of it as roots. Written before recording starts.
  uint32_t own_memory_count;
  struct {
    uint64_t start, end;
  } own_memory[4];
  alignas(64) Counters counters;
  uint32_t cmdline_bytes;  // NUL-separated argv
  char exe[kExeBytes];     // readlink /proc/self/exe
  char hostname[256];
  char cmdline[kCmdlineBytes];
};

// The seq the next record will take (a module scanned now, a fork now, come
// before it): the solo count until the switch to shared counting is done.
inline uint64_t CurrentSeq(const RegionHeader& h) {
  return h.seq_mode.load(std::memory_order_acquire) == kSeqShared
             ? h.next_seq.load(std::memory_order_acquire)
             : h.solo_seq.load(std::memory_order_acquire);
}

// Offsets of each part in the region file, page aligned.
constexpr uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
inline constexpr uint64_t kHeaderOffset = 0;
inline constexpr uint64_t kModulesOffset = AlignUp(sizeof(RegionHeader), 4096);
inline constexpr uint64_t kLabelsOffset =
    AlignUp(kModulesOffset + sizeof(ModuleRecord) * kModuleRecords, 4096);
inline constexpr uint64_t kStackIndexOffset =
    AlignUp(kLabelsOffset + sizeof(LabelRecord) * kLabelRecords, 4096);
inline constexpr uint64_t kStackArenaOffset =
    AlignUp(kStackIndexOffset + sizeof(uint32_t) * kStackIndexSlots, 4096);
inline constexpr uint64_t kRingsOffset =
    AlignUp(kStackArenaOffset + sizeof(uint64_t) * kStackArenaWords, 4096);
inline constexpr uint64_t kRegionBytes = AlignUp(kRingsOffset + sizeof(Ring) * kSlots, 4096);

// A stack entry in the arena, at a word offset that is its id:
//   word 0: hash of the frames; word 1: depth; words 2..: return addresses,
//   innermost first.
inline constexpr uint32_t kStackEntryHeaderWords = 2;

// Typed views of a mapped region.
struct RegionView {
  uint8_t* base = nullptr;
  RegionHeader* header() const { return reinterpret_cast<RegionHeader*>(base + kHeaderOffset); }
  ModuleRecord* modules() const { return reinterpret_cast<ModuleRecord*>(base + kModulesOffset); }
  LabelRecord* labels() const { return reinterpret_cast<LabelRecord*>(base + kLabelsOffset); }
  std::atomic<uint32_t>* stack_index() const {
    return reinterpret_cast<std::atomic<uint32_t>*>(base + kStackIndexOffset);
  }
  uint64_t* stack_arena() const { return reinterpret_cast<uint64_t*>(base + kStackArenaOffset); }
  Ring* rings() const { return reinterpret_cast<Ring*>(base + kRingsOffset); }
};

// The environment variables the launcher sets for the traced program.
inline constexpr char kSessionEnv[] = "HEAPREC_SESSION";       // session folder
inline constexpr char kLauncherPidEnv[] = "HEAPREC_LAUNCHER";  // launcher's pid
inline constexpr char kDepthEnv[] = "HEAPREC_DEPTH";           // max frames
inline constexpr char kFollowEnv[] = "HEAPREC_FOLLOW";         // "0": no children
// Comma-separated globs on a program's file name (heaprec --follow=,
// --no-follow=): only the programs that match one of kFollowOnlyEnv (if
// set) and none of kFollowSkipEnv record (recorder/preload/follow.h).
inline constexpr char kFollowOnlyEnv[] = "HEAPREC_FOLLOW_ONLY";
inline constexpr char kFollowSkipEnv[] = "HEAPREC_FOLLOW_SKIP";
inline constexpr char kMarkSignalEnv[] = "HEAPREC_MARK_SIGNAL";  // 0 = none
inline constexpr char kFreeStacksEnv[] = "HEAPREC_FREE_STACKS";  // "1": stacks of frees too
inline constexpr char kLeakScanEnv[] = "HEAPREC_LEAK_SCAN";      // "0": no scan at the end
inline constexpr char kScanSignalEnv[] =
    "HEAPREC_SCAN_SIGNAL";  // signal that asks for a scan; 0 = none
// heaprec --sample-rate: mean bytes between samples; "0" or unset = exact.
inline constexpr char kSampleRateEnv[] = "HEAPREC_SAMPLE_RATE";
// The sampler's seed (tests that need the same sample every run); unset or
// "0" = from the time and thread ids. Not set by heaprec.
inline constexpr char kSampleSeedEnv[] = "HEAPREC_SAMPLE_SEED";
// "1": start paused (heaprec --start-paused); an exec'd image starts as its
// predecessor was when it switched (recorder/preload/recording_switch.h).
inline constexpr char kPausedEnv[] = "HEAPREC_PAUSED";
inline constexpr char kSwitchSignalEnv[] =
    "HEAPREC_SWITCH_SIGNAL";  // signal that toggles recording; 0 = none
// "1": heaprec --precise-times (RegionHeader::precise_times).
inline constexpr char kPreciseTimesEnv[] = "HEAPREC_PRECISE_TIMES";

}  // namespace heaprec::recorder

#endif  // HEAPREC_RECORDER_SHARED_REGION_LAYOUT_H_
