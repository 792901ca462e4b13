// The recorder core: state, rings, stacks, fork and thread exit (recorder.h).
#include "recorder/preload/recorder.h"

#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "recorder/preload/fast_unwind.h"
#include "recorder/preload/module_scan.h"
#include "recorder/preload/populate.h"
#include "recorder/preload/process_region.h"
#include "recorder/preload/real_allocator.h"
#include "recorder/preload/stack_cache.h"
#include "recorder/shared/region_layout.h"
#include "recorder/shared/ring_futex.h"

namespace heaprec::recorder::preload {

__thread ThreadState t_thread_state __attribute__((tls_model("initial-exec")));

namespace {

enum Mode : int { kUninit = 0, kInitializing = 1, kOn = 2, kOff = 3 };

// The thread's previous stack (stack_cache.h), keyed by t_thread_state.generation.
__thread StackCache t_stack_cache __attribute__((tls_model("initial-exec")));

RegionView g_region;
std::atomic<int> g_mode{kUninit};
std::atomic<uint32_t> g_generation{1};
uint32_t g_max_depth = 64;
bool g_free_stacks = false;  // --free-stacks: capture the stack of every free too
bool g_follow = true;
const char* g_session = nullptr;
int32_t g_launcher_pid = 0;
int g_mark_signal = SIGUSR2;
uintptr_t g_own_start = 0, g_own_end = 0;
pthread_key_t g_exit_key;
uint64_t g_fork_seq = 0;
std::atomic<uint32_t> g_signal_markers{0};
// Calls made before the region existed (forwarded unrecorded), for the counter.
std::atomic<uint64_t> g_early_calls{0};

RegionHeader* Header() { return g_region.header(); }
Counters& Count() { return g_region.header()->counters; }

// The coarse clock (a vDSO read of the last tick, no TSC read) since the
// region's start, a precise CLOCK_MONOTONIC reading the coarse clock may
// trail by up to a tick: clamped at 0 so that early records never underflow.
uint64_t CoarseNowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  const uint64_t now =
      static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
  const uint64_t start = Header()->start_monotonic_ns;
  return now > start ? now - start : 0;
}

// Record times (the trace keeps 1 ms resolution): mostly the launcher's
// clock from the region header, one load of a line every call reads anyway
// (launcher_gone), where clock_gettime through the vDSO cost ~7 ns a record
// (~50 ms of alloc_heavy's 7.2 million). Every 64th record of a thread, and
// until the launcher publishes, the coarse clock itself: a launcher that
// falls behind (busy, descheduled) holds a thread's times back by at most 64
// records. A thread's times never go back.
uint64_t NowNs(ThreadState& ts) {
  uint64_t now = Header()->launcher_clock_ns.load(std::memory_order_relaxed);
  if (now == 0 || (++ts.clock_reads & 63) == 0) now = CoarseNowNs();
  if (now > ts.clock_ns) ts.clock_ns = now;
  return ts.clock_ns;
}

uint32_t ParseUint(const char* s, uint32_t fallback) {
  if (s == nullptr || *s == '\0') return fallback;
  uint32_t v = 0;
  for (; *s >= '0' && *s <= '9'; ++s) v = v * 10 + static_cast<uint32_t>(*s - '0');
  return *s == '\0' ? v : fallback;
}

// Waits until the ring has room for the record at head, and notes in
// ts.ring_limit up to where it has. False if the launcher is gone. Room: all
// kRingRecords for a thread alone, kRingSharedCapacity while other threads
// own rings too (region_layout.h).
//
// A short spin (the launcher is usually mid-drain), then sleeps on the ring's
// futex until the launcher moves tail (ring_futex.h). A sleep that times out
// means the launcher has not drained for 10 ms: then check that it lives.
bool WaitForSpace(ThreadState& ts, Ring* ring, uint64_t head) {
  constexpr uint64_t kSleepNs = 10 * 1000 * 1000;
  const uint64_t capacity = Header()->rings_owned.load(std::memory_order_relaxed) <= 1
                                ? kRingRecords
                                : kRingSharedCapacity;
  for (uint32_t round = 0;; ++round) {
    const uint64_t tail = ring->tail.load(std::memory_order_seq_cst);
    if (head - tail < capacity) {
      ts.ring_limit = tail + capacity;
      return true;
    }
    if (Header()->launcher_gone.load(std::memory_order_relaxed)) return false;
    if (round < 64) {
      __builtin_ia32_pause();
      continue;
    }
    ring->waiting.store(1, std::memory_order_seq_cst);
    if (head - ring->tail.load(std::memory_order_seq_cst) < capacity) continue;
    if (!SleepWhileWaiting(&ring->waiting, kSleepNs) && kill(g_launcher_pid, 0) != 0 &&
        errno == ESRCH) {
      Header()->launcher_gone.store(1, std::memory_order_relaxed);
      return false;
    }
  }
}

void LockShared(Ring* ring) {
  uint32_t expected = 0;
  while (!ring->lock.compare_exchange_weak(expected, 1, std::memory_order_acquire)) {
    expected = 0;
    sched_yield();
  }
}

// Appends one record to this thread's ring. False if it could not.
bool Append(ThreadState& ts, const RawRecord& record);

// Records ahead of head whose cache line each append asks for, for writing.
// The launcher read those lines a lap ago, so writing them needs them back
// from its core: asked for early, that transfer overlaps the program's work
// instead of stalling the next locked instruction (the seq fetch_add), which
// waits for every pending store. Measured on alloc_heavy: 1.24 s -> 0.96 s
// (docs/BENCHMARKS.md).
constexpr uint64_t kPrefetchAhead = 8;
// On a ring's first lap, its pages are mapped this many records ahead, this
// many at a time (populate.h).
constexpr uint64_t kPopulateRecords = 1024;  // 48 KiB

inline void PrefetchForWrite(const void* p) {
#if defined(__x86_64__)
  asm volatile("prefetchw %0" ::"m"(*static_cast<const char*>(p)));  // a NOP before Broadwell
#else
  __builtin_prefetch(p, 1, 3);
#endif
}

// Appends one record filled in place by fill(RawRecord&), which must write
// every field. False (fill not called) if there was no room.
//
// The tail the launcher advances is read only when head reaches the limit
// seen last time (the tail only grows, so the limit stays a safe bound):
// most appends touch no line the launcher writes.
template <typename Fill>
inline bool AppendWith(ThreadState& ts, Fill fill) {
  Ring* ring = static_cast<Ring*>(ts.ring);
  const bool shared = ts.slot == 0;
  if (shared) {
    LockShared(ring);
    Count().shared_ring_records.fetch_add(1, std::memory_order_relaxed);
  }
  const uint64_t head = ring->head.load(std::memory_order_relaxed);
  const bool room = head < ts.ring_limit || WaitForSpace(ts, ring, head);
  if (room) {
    fill(ring->records[head & (kRingRecords - 1)]);
    ring->head.store(head + 1, std::memory_order_release);
    PrefetchForWrite(&ring->records[(head + kPrefetchAhead) & (kRingRecords - 1)]);
    if ((head & (kPopulateRecords - 1)) == 0 && head + 2 * kPopulateRecords <= kRingRecords) {
      PopulateForWrite(&ring->records[head + kPopulateRecords],
                       kPopulateRecords * sizeof(RawRecord));
    }
  }
  if (shared) ring->lock.store(0, std::memory_order_release);
  return room;
}

void WriteThreadStart(ThreadState& ts, int32_t tid) {
  RawRecord r = {};
  r.api = kThreadStart;
  r.address = static_cast<uint64_t>(tid);
  char name[16] = {};
  prctl(PR_GET_NAME, name, 0, 0, 0);
  memcpy(&r.size, name, 8);
  memcpy(&r.extra, name + 8, 8);
  r.seq = TakeSeq();
  r.time_ns = NowNs(ts);
  if (!Append(ts, r)) Count().dropped_events.fetch_add(1, std::memory_order_relaxed);
}

// Whether this process may fence every thread with membarrier() (the switch
// from solo to shared seq counting needs it; without, counting is shared
// from the start). Registering is per process image, again after fork.
bool RegisterMembarrier() {
  const int saved = errno;
  const long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  const bool ok = cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0 &&
                  syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
  errno = saved;
  return ok;
}

// Seqs skipped when the solo thread stays inside its busy window (a signal
// handler that blocks there): it may still take the count it read.
constexpr uint64_t kSeqSkipOnStall = uint64_t{1} << 20;

// Ends solo counting (TakeSeq): the first thread here moves the count to
// next_seq; any other waits until it has.
void SwitchToSharedSeq() {
  RegionHeader* h = Header();
  uint32_t mode = kSeqSolo;
  if (!h->seq_mode.compare_exchange_strong(mode, kSeqSwitching, std::memory_order_acq_rel)) {
    while (h->seq_mode.load(std::memory_order_acquire) != kSeqShared) sched_yield();
    return;
  }
  // Every thread passes a full barrier: the solo thread's busy store made
  // before it read the mode is visible now, and its later reads see the switch.
  const int saved = errno;
  const bool fenced = syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0;
  errno = saved;
  bool idle = false;
  for (uint32_t i = 0; fenced && i < 2000 && !idle; ++i) {  // ~10 ms at most
    idle = h->solo_busy.load(std::memory_order_acquire) == 0;
    if (!idle && i >= 1000) {
      const timespec pause = {0, 10 * 1000};
      nanosleep(&pause, nullptr);
    }
  }
  const uint64_t solo = h->solo_seq.load(std::memory_order_acquire);
  h->next_seq.store(idle ? solo : solo + kSeqSkipOnStall, std::memory_order_release);
  h->seq_mode.store(kSeqShared, std::memory_order_release);
}

// Gives this thread a ring: its own slot if one is free, else the shared one.
void ClaimRing(ThreadState& ts) {
  const int32_t tid = static_cast<int32_t>(gettid());
  Ring* rings = g_region.rings();
  ts.generation = g_generation.load(std::memory_order_acquire);
  ts.ring_limit = 0;
  ts.clock_ns = 0;  // times of another region (the parent's, before fork)
  // A second claimer ends solo seq counting (TakeSeq) before its first seq.
  if (Header()->claims.fetch_add(1, std::memory_order_acq_rel) > 0) SwitchToSharedSeq();
  if (!ts.exiting) {
    const uint32_t start = 1 + static_cast<uint32_t>(tid) % (kSlots - 1);
    for (uint32_t i = 0; i < kSlots - 1; ++i) {
      const uint32_t slot = 1 + (start - 1 + i) % (kSlots - 1);
      uint32_t expected = kSlotFree;
      if (rings[slot].state.compare_exchange_strong(expected, kSlotOwned,
                                                    std::memory_order_acq_rel)) {
        rings[slot].tid.store(tid, std::memory_order_relaxed);
        rings[slot].generation++;
        Header()->slots_in_use[slot / 64].fetch_or(uint64_t{1} << (slot % 64),
                                                   std::memory_order_release);
        Header()->rings_owned.fetch_add(1, std::memory_order_relaxed);
        ts.slot = slot;
        ts.ring = &rings[slot];
        // Its first lap's pages are mapped ahead of the writes (AppendWith).
        const uint64_t head = rings[slot].head.load(std::memory_order_relaxed);
        if (head < kRingRecords) {
          PopulateForWrite(&rings[slot].records[head & ~(kPopulateRecords - 1)],
                           kPopulateRecords * sizeof(RawRecord));
        }
        pthread_setspecific(g_exit_key, reinterpret_cast<void*>(1));
        WriteThreadStart(ts, tid);
        return;
      }
    }
  }
  ts.slot = 0;
  ts.ring = &rings[0];
  WriteThreadStart(ts, tid);
}

bool Append(ThreadState& ts, const RawRecord& record) {
  return AppendWith(ts, [&](RawRecord& slot) { slot = record; });
}

void OnThreadExit(void*) {
  ThreadState& ts = t_thread_state;
  ts.exiting = 1;
  if (ts.ring != nullptr && ts.slot != 0 &&
      ts.generation == g_generation.load(std::memory_order_acquire)) {
    static_cast<Ring*>(ts.ring)->state.store(kSlotRetired, std::memory_order_release);
    Header()->rings_owned.fetch_sub(1, std::memory_order_relaxed);
  }
  ts.ring = nullptr;
}

void OnMarkSignal(int) {
  const int saved = errno;
  ThreadState& ts = t_thread_state;
  if (ts.guard != 0) {
    ts.pending_marker = 1;  // emitted by Leave()
  } else {
    Marker(nullptr);
  }
  errno = saved;
}

void ForkPrepare() {
  t_thread_state.in_fork = 1;  // this thread records (and unwinds) nothing until the fork is done
  BlockFastUnwindForFork();    // no libunwind lock is held across the fork
  if (g_mode.load(std::memory_order_acquire) == kOn) {
    g_fork_seq = CurrentSeq(*Header());
  }
  LockModuleScan();
}

void ForkParent() {
  UnlockModuleScan();
  UnblockFastUnwindAfterFork();
  t_thread_state.in_fork = 0;
}

void ForkChild() {
  ThreadState& ts = t_thread_state;
  ts.ring = nullptr;
  ResetFastUnwindAfterFork();
  if (g_mode.load(std::memory_order_acquire) == kOn) {
    const RegionView parent = g_region;
    RegionView child;
    if (g_follow) {
      child =
          CreateRegion({g_session, g_launcher_pid, g_max_depth, g_fork_seq, RegisterMembarrier()});
    }
    g_mode.store(child.base != nullptr ? kOn : kOff, std::memory_order_release);
    if (child.base != nullptr) {
      g_region = child;
      g_generation.fetch_add(1, std::memory_order_acq_rel);
      ForgetModules();
    }
    munmap(parent.base, kRegionBytes);  // the parent's rings are not ours
  }
  UnlockModuleScan();
  if (g_mode.load(std::memory_order_acquire) == kOn) {
    ts.guard++;
    ScanModules(g_region);
    ts.guard--;
  }
  ts.in_fork = 0;
}

void InstallMarkSignal() {
  if (g_mark_signal <= 0 || g_mark_signal >= NSIG) return;
  struct sigaction old;
  if (sigaction(g_mark_signal, nullptr, &old) != 0) return;
  if (old.sa_handler != SIG_DFL) return;  // the program's own handler wins
  struct sigaction sa = {};
  sa.sa_handler = OnMarkSignal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(g_mark_signal, &sa, nullptr);
}

}  // namespace

void Initialize() {
  int expected = kUninit;
  if (!g_mode.compare_exchange_strong(expected, kInitializing, std::memory_order_acq_rel)) return;
  ThreadState& ts = t_thread_state;
  ts.guard++;
  ResolveRealAllocator();
  g_session = getenv(kSessionEnv);
  if (g_session == nullptr || g_session[0] == '\0') {
    g_mode.store(kOff, std::memory_order_release);
    ts.guard--;
    return;
  }
  g_launcher_pid = static_cast<int32_t>(ParseUint(getenv(kLauncherPidEnv), 0));
  g_max_depth = ParseUint(getenv(kDepthEnv), 64);
  if (g_max_depth == 0) g_max_depth = 1;
  if (g_max_depth > kMaxDepth) g_max_depth = kMaxDepth;
  g_follow = ParseUint(getenv(kFollowEnv), 1) != 0;
  g_free_stacks = ParseUint(getenv(kFreeStacksEnv), 0) != 0;
  g_mark_signal = static_cast<int>(ParseUint(getenv(kMarkSignalEnv), SIGUSR2));
  OwnTextRange(&g_own_start, &g_own_end);
  g_region = CreateRegion({g_session, g_launcher_pid, g_max_depth, 0, RegisterMembarrier()});
  if (g_region.base == nullptr) {
    g_mode.store(kOff, std::memory_order_release);
    ts.guard--;
    return;
  }
  Count().bootstrap_allocations.fetch_add(g_early_calls.load(std::memory_order_relaxed),
                                          std::memory_order_relaxed);
  pthread_key_create(&g_exit_key, OnThreadExit);
  pthread_atfork(ForkPrepare, ForkParent, ForkChild);
  if (!g_follow) unsetenv(kSessionEnv);  // exec'd images are not traced
  ScanModules(g_region);
  InstallMarkSignal();
  g_mode.store(kOn, std::memory_order_release);
  ts.guard--;
}

bool Enter(ThreadState& ts) {
  if (ts.guard != 0) {
    if (g_mode.load(std::memory_order_relaxed) == kOn) {
      Count().reentrant_calls.fetch_add(1, std::memory_order_relaxed);
    }
    return false;
  }
  int mode = g_mode.load(std::memory_order_acquire);
  if (mode != kOn) {
    if (mode == kInitializing) g_early_calls.fetch_add(1, std::memory_order_relaxed);
    if (mode != kUninit) return false;
    Initialize();
    if (g_mode.load(std::memory_order_acquire) != kOn) return false;
  }
  if (ts.in_fork != 0) {
    Count().fork_window_calls.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  if (Header()->launcher_gone.load(std::memory_order_relaxed)) {
    Count().dropped_events.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  ts.guard = 1;
  if (ts.ring == nullptr || ts.generation != g_generation.load(std::memory_order_acquire)) {
    ClaimRing(ts);
  }
  return true;
}

void Leave(ThreadState& ts) {
  ts.guard = 0;
  if (ts.pending_marker != 0) {
    ts.pending_marker = 0;
    Marker(nullptr);
  }
}

// While one thread alone records (seq_mode kSeqSolo), it counts with plain
// loads and stores: a locked fetch_add waits for every store the thread has
// pending (ring lines, the allocator's own); BM_WriteEvent 15.3 -> 12.6 ns,
// more where stores are pending (below the noise of the workloads' wall
// times on this host). solo_busy marks the few instructions between
// reading the mode and storing the count: the switching thread (one that
// claims a second ring) sets the mode, runs membarrier() so that the solo
// thread's busy store is visible and its later mode loads see the switch,
// waits out the busy window and moves the count to next_seq.
uint64_t TakeSeq() {
  RegionHeader* h = Header();
  if (h->seq_mode.load(std::memory_order_relaxed) == kSeqSolo) {
    h->solo_busy.store(1, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);  // membarrier() orders it for the switcher
    if (h->seq_mode.load(std::memory_order_relaxed) == kSeqSolo) {
      const uint64_t seq = h->solo_seq.load(std::memory_order_relaxed);
      h->solo_seq.store(seq + 1, std::memory_order_relaxed);
      h->solo_busy.store(0, std::memory_order_release);
      return seq;
    }
    h->solo_busy.store(0, std::memory_order_release);
  }
  // A switch in progress: the switcher is at most ~10 ms from done.
  for (uint32_t spins = 0; h->seq_mode.load(std::memory_order_acquire) != kSeqShared; ++spins) {
    if (spins < 128) {
      __builtin_ia32_pause();
    } else {
      sched_yield();
    }
  }
  return h->next_seq.fetch_add(1, std::memory_order_acq_rel);
}

uint32_t CaptureStack(uintptr_t hook_frame) {
  void* ips[kMaxDepth + 16];
  const int want = static_cast<int>(g_max_depth) + 8;
  // The same frames as unw_backtrace(ips, want) from the hook's caller on,
  // mostly without libunwind.
  const int n = FastBacktraceFrom(ips, want, hook_frame);
  int skip = 0;
  while (skip < n && reinterpret_cast<uintptr_t>(ips[skip]) >= g_own_start &&
         reinterpret_cast<uintptr_t>(ips[skip]) < g_own_end) {
    ++skip;
  }
  uint32_t depth = n > skip ? static_cast<uint32_t>(n - skip) : 0;
  if (depth == 0) {
    Count().unwind_failures.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  if (depth > g_max_depth || n == want) {
    if (depth > g_max_depth) depth = g_max_depth;
    Count().truncated_stacks.fetch_add(1, std::memory_order_relaxed);
  }
  bool inserted = false;
  const uint32_t id =
      InternStackCached(t_stack_cache, t_thread_state.generation, g_region,
                        reinterpret_cast<const uint64_t*>(ips + skip), depth, &inserted);
  if (id == 0) Count().stack_table_full.fetch_add(1, std::memory_order_relaxed);
  // A new stack may run through a newly loaded object: log it first.
  if (inserted) ScanModulesIfChanged(g_region);
  return id;
}

void WriteEvent(ThreadState& ts, uint64_t seq, format::Api api, uint64_t address, uint64_t size,
                uint64_t extra, uint32_t stack) {
  const uint64_t time_ns = NowNs(ts);
  const bool written = AppendWith(ts, [&](RawRecord& r) {
    r.seq = seq;
    r.time_ns = time_ns;
    r.address = address;
    r.size = size;
    r.extra = extra;
    r.stack = stack;
    r.api = static_cast<uint8_t>(api);
    r.pad[0] = r.pad[1] = r.pad[2] = 0;
  });
  if (!written) Count().dropped_events.fetch_add(1, std::memory_order_relaxed);
}

void RecordAlloc(ThreadState& ts, format::Api api, const void* result, size_t size, size_t extra,
                 uintptr_t hook_frame) {
  const uint32_t stack = CaptureStack(hook_frame);
  WriteEvent(ts, TakeSeq(), api, reinterpret_cast<uint64_t>(result), size, extra, stack);
}

void RecordFree(ThreadState& ts, format::Api api, const void* block, size_t size, size_t alignment,
                uintptr_t hook_frame) {
  // The seq is taken before the capture, as for any free: the block is still
  // live until the real free below returns.
  const uint64_t seq = TakeSeq();
  const uint32_t stack = g_free_stacks ? CaptureStack(hook_frame) : 0;
  WriteEvent(ts, seq, api, reinterpret_cast<uint64_t>(block), size, alignment, stack);
}

void Marker(const char* label) {
  ThreadState& ts = t_thread_state;
  if (!Enter(ts)) return;
  const uint32_t index = Header()->label_count.fetch_add(1, std::memory_order_relaxed);
  RawRecord r = {};
  r.api = kMarker;
  if (index < kLabelRecords) {
    LabelRecord& l = g_region.labels()[index];
    size_t n = 0;
    if (label == nullptr) {
      const uint32_t k = g_signal_markers.fetch_add(1, std::memory_order_relaxed) + 1;
      memcpy(l.text, "signal-", 7);
      n = 7 + static_cast<size_t>(FormatDecimal(k, l.text + 7));
    } else {
      while (label[n] != '\0' && n < kLabelBytes - 1) {
        l.text[n] = label[n];
        ++n;
      }
    }
    l.text[n] = '\0';
    l.thread_tid = static_cast<uint32_t>(gettid());
    l.ready.store(1, std::memory_order_release);
    r.address = index;
  } else {
    Count().label_log_full.fetch_add(1, std::memory_order_relaxed);
    r.address = UINT64_MAX;
  }
  r.seq = TakeSeq();
  r.time_ns = NowNs(ts);
  if (!Append(ts, r)) Count().dropped_events.fetch_add(1, std::memory_order_relaxed);
  Leave(ts);
}

void ThreadRenamed(int32_t tid, const char* name) {
  ThreadState& ts = t_thread_state;
  if (!Enter(ts)) return;
  RawRecord r = {};
  r.api = kThreadName;
  r.address = static_cast<uint64_t>(tid);
  char buf[16] = {};
  for (int i = 0; i < 15 && name != nullptr && name[i] != '\0'; ++i) buf[i] = name[i];
  memcpy(&r.size, buf, 8);
  memcpy(&r.extra, buf + 8, 8);
  r.seq = TakeSeq();
  r.time_ns = NowNs(ts);
  if (!Append(ts, r)) Count().dropped_events.fetch_add(1, std::memory_order_relaxed);
  Leave(ts);
}

void ModulesChanged() {
  ThreadState& ts = t_thread_state;
  if (!Enter(ts)) return;
  ScanModules(g_region);
  Leave(ts);
}

void CountBootstrap() {
  if (g_mode.load(std::memory_order_acquire) == kOn) {
    Count().bootstrap_allocations.fetch_add(1, std::memory_order_relaxed);
  } else {
    g_early_calls.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace heaprec::recorder::preload
