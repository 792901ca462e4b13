// The recorder core: initialization, entering and leaving, stacks, events
// and thread exit (recorder.h).
#include "recorder/preload/recorder.h"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstring>

#include "recorder/preload/attach.h"
#include "recorder/preload/fast_unwind.h"
#include "recorder/preload/follow.h"
#include "recorder/preload/leak_scan_request.h"
#include "recorder/preload/module_scan.h"
#include "recorder/preload/process_region.h"
#include "recorder/preload/real_allocator.h"
#include "recorder/preload/recorder_state.h"
#include "recorder/preload/recording_switch.h"
#include "recorder/preload/sampled_set.h"
#include "recorder/preload/sampler.h"
#include "recorder/preload/seq_counter.h"
#include "recorder/preload/stack_cache.h"
#include "recorder/preload/stack_interner.h"
#include "recorder/preload/stack_scrub.h"
#include "recorder/preload/thread_block.h"
#include "recorder/preload/unwind_learn.h"
#include "recorder/preload/unwind_rules.h"

namespace heaprec::recorder::preload {

__thread ThreadState t_thread_state __attribute__((tls_model("initial-exec")));
constinit RecorderState g_recorder;

namespace {

// The thread's previous stacks (stack_cache.h), keyed by
// t_thread_state.generation, in its ThreadBlock (all zeros = empty).
static_assert(sizeof(StackCache) <= sizeof(ThreadBlock::stack_cache) &&
              alignof(StackCache) <= alignof(ThreadBlock));
inline StackCache& StackCacheOf(ThreadBlock& block) {
  return *reinterpret_cast<StackCache*>(block.stack_cache);
}

// Gives this thread a ring in the current region and writes its start record.
// Once per thread and region: out of line, so that Enter keeps its registers.
__attribute__((noinline, cold)) void ClaimThreadRing(ThreadState& ts) {
  const int32_t tid = static_cast<int32_t>(gettid());
  ts.generation = g_recorder.generation.load(std::memory_order_acquire);
  StartClock(Header(), ts.clock, Header().precise_times != 0);  // not another region's times
  // This hook's start, for the thread-start record below (Enter reads it
  // again after the claim).
  if (ts.clock.precise != 0) HookBegins(Header(), ts.clock);
  // A second claimer ends solo seq counting before its first seq.
  if (Header().claims.fetch_add(1, std::memory_order_acq_rel) > 0) SwitchToSharedSeq(Header());
  ts.ring = ClaimRing(g_recorder.region, tid, /*shared_only=*/ts.exiting != 0);
  // OnThreadExit releases the ring and the ThreadBlock the thread takes on
  // its first capture (also with the shared ring: the block still goes back).
  if (ts.exiting == 0) pthread_setspecific(g_recorder.exit_key, reinterpret_cast<void*>(1));
  WriteThreadStart(ts, tid);
}

}  // namespace

void AnnounceOwnMemory() {
  RegionHeader& h = Header();
  uint32_t n = 0;
  size_t bytes = 0;
  if (const void* p = UnwindRulesMemory(&bytes)) {
    h.own_memory[n++] = {reinterpret_cast<uintptr_t>(p), reinterpret_cast<uintptr_t>(p) + bytes};
  }
  if (const void* p = UnwindScratchMemory(&bytes)) {
    h.own_memory[n++] = {reinterpret_cast<uintptr_t>(p), reinterpret_cast<uintptr_t>(p) + bytes};
  }
  if (const void* p = ThreadBlocksMemory(&bytes)) {
    h.own_memory[n++] = {reinterpret_cast<uintptr_t>(p), reinterpret_cast<uintptr_t>(p) + bytes};
  }
  if (const void* p = SampledSetMemory(&bytes)) {
    h.own_memory[n++] = {reinterpret_cast<uintptr_t>(p), reinterpret_cast<uintptr_t>(p) + bytes};
  }
  h.own_memory_count = n;
}

// Sampling mode: the live sampled blocks (sampled_set.h), in memory mapped
// by StartSampling.
SampledSet g_sampled_blocks;

namespace {

void* g_sampled_memory = nullptr;

}  // namespace

void StartSampling(Config* c) {
  if (c->sample_rate == 0) return;
  if (g_sampled_memory != nullptr) {  // an earlier attach's: emptied
    madvise(g_sampled_memory, SampledSet::BytesNeeded(), MADV_DONTNEED);
    g_sampled_blocks.ClearFilter();
    g_sampled_blocks.Attach(g_sampled_memory);
    return;
  }
  void* m = mmap(nullptr, SampledSet::BytesNeeded(), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) {
    c->sample_rate = 0;
    return;
  }
  g_sampled_memory = m;
  g_sampled_blocks.Attach(m);
}

const void* SampledSetMemory(size_t* bytes) {
  *bytes = SampledSet::BytesNeeded();
  return g_sampled_memory;
}

void KeepSampled(const void* block) {
  if (!g_sampled_blocks.Insert(reinterpret_cast<uintptr_t>(block))) {
    Count().unkept_samples.fetch_add(1, std::memory_order_relaxed);
  }
}

bool TakeSampled(const void* block) {
  return g_sampled_blocks.Take(reinterpret_cast<uintptr_t>(block));
}

namespace {

void OnThreadExit(void*) {
  ThreadState& ts = t_thread_state;
  ts.exiting = 1;
  // The thread's stack outlives it (glibc caches it): what its frames left
  // below must not look like pointers to a leak scan.
  if (LeakScansOn()) ScrubStackBelowHere();
  if (ts.generation == g_recorder.generation.load(std::memory_order_acquire)) {
    ReleaseRing(g_recorder.region, ts.ring);
  }
  ts.ring = {};
  // For the next thread to start; what this one records from here on goes
  // without (libunwind, no stack cache).
  ReleaseThreadBlock();
}

}  // namespace

void Initialize() {
  int expected = kUninit;
  if (!g_recorder.mode.compare_exchange_strong(expected, kInitializing,
                                               std::memory_order_acq_rel)) {
    return;
  }
  ThreadState& ts = t_thread_state;
  ts.guard++;
  ResolveRealAllocator();
  g_recorder.config = ReadConfig();
  Config& c = g_recorder.config;
  // A program not followed records nothing but keeps the session in the
  // environment: the programs it starts decide for themselves.
  if (c.session != nullptr && ThisProgramFollowed(c.follow_only, c.follow_skip)) {
    OwnTextRange(&g_recorder.own_start, &g_recorder.own_end);
    StartSampling(&c);
    g_recorder.region = CreateRegion({c.session, c.launcher_pid, c.max_depth, 0,
                                      RegisterMembarrier(), 0, c.sample_rate, PausedAtStart(),
                                      /*attached=*/false, c.precise_times});
  }
  if (g_recorder.region.base == nullptr) {
    g_recorder.mode.store(kOff, std::memory_order_release);
    ts.guard--;
    return;
  }
  Count().bootstrap_allocations.fetch_add(g_recorder.early_calls.load(std::memory_order_relaxed),
                                          std::memory_order_relaxed);
  AnnounceOwnMemory();
  UseSwitch(Header());
  InstallThreadExit();
  InstallForkHandlers();
  if (!c.follow) unsetenv(kSessionEnv);  // exec'd images are not traced
  ScanModules(g_recorder.region);
  InstallMarkSignal();
  InstallLeakScans();
  InstallSwitchSignal();
  SetSampleRate(c.sample_rate, c.sample_seed);
  g_recorder.mode.store(kOn, std::memory_order_release);
  ts.guard--;
}

// --precise-times: the hook's start now, its end in Leave through pending
// (whose test Leave makes anyway). One instruction (or to memory), so a
// signal handler on this thread cannot come between a read and a write and
// lose its own bit; no lock prefix: no other thread writes it (x86-64, as
// the spare stack).
__attribute__((noinline, cold)) static void TimeHook(ThreadState& ts) {
  HookBegins(Header(), ts.clock);
  asm volatile("orl %1, %0" : "+m"(ts.pending) : "i"(kPendingClock));
}
__attribute__((noinline, cold)) static void EndTimedHook(ThreadState& ts) {
  HookEnds(Header(), ts.clock);
}

// Enter() when any of its tests may fail: all of them, in order.
__attribute__((noinline)) static bool EnterSlow(ThreadState& ts) {
  if (ts.guard != 0) {
    if (g_recorder.mode.load(std::memory_order_relaxed) == kOn) {
      Count().reentrant_calls.fetch_add(1, std::memory_order_relaxed);
    }
    return false;
  }
  const int mode = g_recorder.mode.load(std::memory_order_acquire);
  if (mode != kOn) {
    if (mode == kInitializing) g_recorder.early_calls.fetch_add(1, std::memory_order_relaxed);
    if (mode != kUninit) return false;
    Initialize();
    if (g_recorder.mode.load(std::memory_order_acquire) != kOn) return false;
  }
  if (ts.in_fork != 0) {
    Count().fork_window_calls.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  if (Header().launcher_gone.load(std::memory_order_relaxed)) {
    Count().dropped_events.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  ts.guard = 1;
  if (ts.ring.ring == nullptr ||
      ts.generation != g_recorder.generation.load(std::memory_order_acquire)) {
    ClaimThreadRing(ts);
  }
  if (__builtin_expect(ts.clock.precise != 0, 0)) TimeHook(ts);
  // heaprec --start/--stop or the switch signal asked: the marker goes here.
  if (__builtin_expect(SwitchAsked(Header().recording_switch.load(std::memory_order_relaxed)), 0)) {
    ApplySwitchLocked(ts);
  }
  return true;
}

// The common case first, with no call and so no registers to save (alloc_heavy:
// Enter and Leave were 45 instructions an event, a third of them the saves):
// every test of EnterSlow passes at once; any other case goes there.
bool Enter(ThreadState& ts) {
  if (__builtin_expect(ts.guard == 0 && ts.in_fork == 0 && ts.clock.precise == 0 &&
                           ts.ring.ring != nullptr &&
                           g_recorder.mode.load(std::memory_order_acquire) == kOn &&
                           ts.generation == g_recorder.generation.load(std::memory_order_acquire) &&
                           !Header().launcher_gone.load(std::memory_order_relaxed) &&
                           !SwitchAsked(Header().recording_switch.load(std::memory_order_relaxed)),
                       1)) {
    ts.guard = 1;
    return true;
  }
  return EnterSlow(ts);
}

void InstallThreadExit() { pthread_key_create(&g_recorder.exit_key, OnThreadExit); }

// What signals (or --precise-times) left for Leave() to do.
__attribute__((noinline)) static void LeavePending(ThreadState& ts) {
  const uint32_t pending = ts.pending;
  ts.pending = 0;
  if ((pending & kPendingClock) != 0) EndTimedHook(ts);
  if ((pending & kPendingMarker) != 0) Marker(nullptr);
  if ((pending & kPendingScan) != 0) RequestLeakScan(ScanReason::kSignal, nullptr);
}

// The guard released, then what is pending read: a signal that comes before
// the release leaves its bit for this read, one after it is handled where
// it lands (the fence keeps the compiler from reading first).
__attribute__((always_inline)) static inline void ReleaseGuard(ThreadState& ts) {
  ts.guard = 0;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  if (__builtin_expect(ts.pending != 0, 0)) LeavePending(ts);
}

__attribute__((noinline)) static void LeaveAttached(ThreadState& ts) {
  AttachTick(ts.attach_countdown);
  ReleaseGuard(ts);
}

// As Enter: no call on the common path, so no registers saved.
void Leave(ThreadState& ts) {
  if (__builtin_expect(g_recorder.attached.load(std::memory_order_relaxed) != 0, 0)) {
    LeaveAttached(ts);
    return;
  }
  ReleaseGuard(ts);
}

// TakeSeq, inlined into RecordAlloc and RecordFree.
__attribute__((always_inline)) static inline uint64_t TakeSeqHere(ThreadState& ts) {
  // Room for this seq's record and one more (a realloc that moves writes
  // two) before the seq is taken, so that it is never held while waiting.
  ReserveRoom(g_recorder.region, g_recorder.config.launcher_pid, ts.ring, 2);
  return preload::TakeSeq(Header());
}

uint64_t TakeSeq() { return TakeSeqHere(t_thread_state); }

namespace {

// In a recent capture's tag (TagCapture): the stack id, and this bit when
// the stack was cut at the depth limit.
constexpr uint64_t kTagTruncated = uint64_t{1} << 32;

// Frames CaptureStack asks for at most (max_depth + 8, and room to spare).
constexpr int kCaptureFrames = kMaxDepth + 16;
static_assert(sizeof(ThreadBlock::capture) >= sizeof(void*) * kCaptureFrames);

// CaptureStack with ips (kCaptureFrames long) for the frames, block (the
// unwinder's state and spare stack) or nullptr, cache (the thread's own
// block's stack cache) or nullptr.
__attribute__((always_inline)) inline uint32_t CaptureInto(void** ips, ThreadBlock* block,
                                                           ThreadBlock* cache,
                                                           uintptr_t hook_frame) {
  const uint32_t max_depth = g_recorder.config.max_depth;
  const int want = static_cast<int>(max_depth) + 8;
  // The same frames as unw_backtrace(ips, want) from the hook's caller on,
  // mostly without libunwind.
  // The stack cache holds what the thread's last capture became, if it
  // was kept in this region (generation 0 when it was not).
  StackCache* const sc = cache != nullptr ? &StackCacheOf(*cache) : nullptr;
  // Most captures: a recent capture's frames again, tagged with their id
  // (below): that id, in one call (FastBacktraceFrom would answer the same,
  // through more bookkeeping: alloc_heavy, ~60 instructions a capture).
  uint64_t tag;
  if (sc != nullptr && RecentTag(block, hook_frame, want, t_thread_state.generation, &tag)) {
    if ((tag & kTagTruncated) != 0)
      Count().truncated_stacks.fetch_add(1, std::memory_order_relaxed);
    return static_cast<uint32_t>(tag);
  }
  CaptureInfo info;
  if (sc != nullptr && sc->generation == t_thread_state.generation) info.kept_serial = sc->serial;
  // A recent capture's frames again: the id it got, tagged below (in this
  // region: the epoch is its generation, never 0).
  info.use_recent = true;
  info.tag_epoch = sc != nullptr ? t_thread_state.generation : 0;
  const int n = FastBacktraceFrom(ips, want, hook_frame, block, &info);
  if (info.tagged) {
    if ((info.tag & kTagTruncated) != 0) {
      Count().truncated_stacks.fetch_add(1, std::memory_order_relaxed);
    }
    return static_cast<uint32_t>(info.tag);
  }
  // Those frames again (the same frames make the same trimmed stack, the
  // same id): the kept id, without copying, trimming, comparing or hashing
  // them again (and ips holds only the first: fast_unwind.h).
  if (info.repeat && info.kept_serial != 0 && info.kept_serial + 1 == info.serial) {
    sc->serial = info.serial;
    if (sc->truncated != 0) Count().truncated_stacks.fetch_add(1, std::memory_order_relaxed);
    return sc->id;
  }
  int skip = 0;
  while (skip < n && reinterpret_cast<uintptr_t>(ips[skip]) >= g_recorder.own_start &&
         reinterpret_cast<uintptr_t>(ips[skip]) < g_recorder.own_end) {
    ++skip;
  }
  // The outermost frames of the main thread pass through heaprec's wrapper of
  // main (hooks_misc.cc, MainThenScrub): not a frame of the program's. The
  // own frames among the outermost four are dropped, the others kept in order
  // (in place: at most three move).
  const uintptr_t own_size = g_recorder.own_end - g_recorder.own_start;
  int end = n - 4 > skip ? n - 4 : skip;
  int outer_cut = 0;  // of those dropped, frames the unwinder copied (info.outer)
  for (int i = end; i < n; ++i) {
    void* const ip = ips[i];
    if (reinterpret_cast<uintptr_t>(ip) - g_recorder.own_start < own_size) {
      outer_cut += i >= static_cast<int>(info.outer_at);
      continue;
    }
    ips[end++] = ip;
  }
  uint32_t depth = end > skip ? static_cast<uint32_t>(end - skip) : 0;
  if (depth == 0) {
    Count().unwind_failures.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  const bool truncated = depth > max_depth || n == want;
  if (truncated) {
    if (depth > max_depth) depth = max_depth;
    Count().truncated_stacks.fetch_add(1, std::memory_order_relaxed);
    // The cut stacks share one root, the mark (skip + depth <= n < want + 1).
    ips[skip + depth] = reinterpret_cast<void*>(format::kTruncatedFrameAddress);
    ++depth;
  }
  // The frames the unwinder copied from the previous capture (info.outer)
  // are that capture's outermost; where the kept stack is that capture's,
  // neither stack cut, and neither capture's skipped frames among them, the
  // same removals of the main wrapper hit both (the same frames, as many
  // from the end): the kept stack's outermost outer - outer_cut frames are
  // this stack's, and InternStackCached need not compare them.
  uint32_t known_outer = 0;
  if (info.outer != 0 && info.kept_serial != 0 && info.kept_serial + 1 == info.serial &&
      !truncated && sc->truncated == 0 && skip <= static_cast<int>(info.outer_at) &&
      sc->skipped <= info.outer_from) {
    known_outer = info.outer - static_cast<uint32_t>(outer_cut);
  }
  bool inserted = false;
  const auto* frames = reinterpret_cast<const uint64_t*>(ips + skip);
  const uint32_t id =
      __builtin_expect(cache != nullptr, 1)
          ? InternStackCached(StackCacheOf(*cache), t_thread_state.generation, g_recorder.region,
                              frames, depth, &inserted, known_outer)
          : InternStack(g_recorder.region, frames, depth, &inserted);
  if (sc != nullptr) {  // what the next capture may use again (generation 0: nothing)
    sc->serial = info.serial;
    sc->truncated = truncated ? 1 : 0;
    sc->skipped = static_cast<uint32_t>(skip);
    if (id != 0 && info.tag_epoch != 0) {
      TagCapture(block, info.serial, info.tag_epoch, id | (truncated ? kTagTruncated : 0));
    }
  }
  if (id == 0) Count().stack_table_full.fetch_add(1, std::memory_order_relaxed);
  // A new stack may run through a newly loaded object: log it first.
  if (inserted) ScanModulesIfChanged(g_recorder.region);
  return id;
}

// Without a block of its own (none could be had, or the thread is exiting:
// thread_block.h): a block borrowed for this capture, the stack interned
// without the cache. With none to borrow, no stack (counted): libunwind on
// the program's stack could overflow a small one.
__attribute__((noinline, cold)) uint32_t CaptureWithoutBlock(uintptr_t hook_frame) {
  ThreadBlock* const borrowed = BorrowThreadBlock();
  if (borrowed == nullptr) {
    Count().unwind_skipped.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  const uint32_t id =
      CaptureInto(reinterpret_cast<void**>(borrowed->capture), borrowed, nullptr, hook_frame);
  ReturnThreadBlock(borrowed);
  return id;
}

}  // namespace

uint32_t CaptureStack(uintptr_t hook_frame) {
  // The unwinder's state, the stack cache and the frames' scratch, off the
  // program's stack; taken on the thread's first capture (thread_block.h).
  ThreadBlock* const block = ThisThreadBlock();
  if (__builtin_expect(block == nullptr, 0)) return CaptureWithoutBlock(hook_frame);
  return CaptureInto(reinterpret_cast<void**>(block->capture), block, block, hook_frame);
}

// Empties the scratch registers but RAX (all of them caller-saved: dead when
// the hook returns). An event's block address would otherwise stay in one
// that the program does not write again before a crash, and the leak scan
// at a fatal signal reads the registers as the signal found them
// (signal_context.h), as memcheck does: a block the program dropped would be
// "still reachable" through the recorder's leftovers (leak_kinds segv: the
// 33 bytes Plain() drops, through R10). Eight zeroing idioms, which the CPU
// does without executing them.
__attribute__((always_inline)) static inline void ClearScratchRegisters() {
  asm volatile(
      "xorl %%ecx, %%ecx\n\txorl %%edx, %%edx\n\txorl %%esi, %%esi\n\txorl %%edi, %%edi\n\t"
      "xorl %%r8d, %%r8d\n\txorl %%r9d, %%r9d\n\txorl %%r10d, %%r10d\n\txorl %%r11d, %%r11d" ::
          : "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11");
}

// stack, api and RawRecord's padding as laid out in a record from its field
// stack on (little-endian: ring.h): one 8-byte store.
static inline uint64_t RecordTail(format::Api api, uint32_t stack) {
  static_assert(offsetof(RawRecord, api) == offsetof(RawRecord, stack) + 4 &&
                offsetof(RawRecord, pad) == offsetof(RawRecord, api) + 1 &&
                sizeof(RawRecord) == offsetof(RawRecord, stack) + sizeof(uint64_t));
  return stack | static_cast<uint64_t>(static_cast<uint8_t>(api)) << 32;
}

// WriteEvent in every case: the clock's periodic read, the shared ring's
// lock, a wait for room, pages populated ahead. Six arguments, all in
// registers (api and stack in one: RecordTail), in WriteEventHere's places
// but the third, so that its common path need not move them around.
__attribute__((noinline)) static void WriteEventSlow(ThreadState& ts, uint64_t seq, uint64_t tail,
                                                     HiddenAddress address, uint64_t size,
                                                     uint64_t extra) {
  const auto stack = static_cast<uint32_t>(tail);
  const auto api = static_cast<format::Api>(static_cast<uint8_t>(tail >> 32));
  const uint64_t time_ns = NowNs(Header(), ts.clock);
  AppendOrCount(ts, [&](RawRecord& r) {
    r.seq = seq;
    r.time_ns = time_ns;
    r.address = Reveal(address);
    r.size = size;
    r.extra = extra;
    r.stack = stack;
    r.api = static_cast<uint8_t>(api);
    r.pad[0] = r.pad[1] = r.pad[2] = 0;
  });
  ClearScratchRegisters();
}

// The common case as WriteEventSlow does it, with no call and so no
// registers saved (alloc_heavy: 22 of its 37 instructions an event were
// the saves): the launcher's clock taken as it is (NowNs without its
// periodic read), the thread's own ring with room, no pages to populate
// (AppendWith). Any other case goes to WriteEventSlow, nothing changed yet.
__attribute__((always_inline)) static inline void WriteEventHere(ThreadState& ts, uint64_t seq,
                                                                 format::Api api,
                                                                 HiddenAddress address,
                                                                 uint64_t size, uint64_t extra,
                                                                 uint32_t stack) {
  const uint64_t tail = RecordTail(api, stack);
  const uint64_t now = Header().launcher_clock_ns.load(std::memory_order_relaxed);
  Ring* const ring = ts.ring.ring;
  const uint64_t head = ring->head.load(std::memory_order_relaxed);
  if (__builtin_expect(now == 0 || ((ts.clock.reads + 1) & ts.clock.read_mask) == 0 ||
                           ts.ring.slot == 0 || head >= ts.ring.limit ||
                           (head & (kPopulateRecords - 1)) == 0,
                       0)) {
    WriteEventSlow(ts, seq, tail, address, size, extra);
    return;
  }
  ++ts.clock.reads;
  if (now > ts.clock.last_ns) ts.clock.last_ns = now;
  RawRecord& r = RecordAt(*ring, head);
  r.seq = seq;
  r.time_ns = ts.clock.last_ns;
  r.address = Reveal(address);
  r.size = size;
  r.extra = extra;
  memcpy(reinterpret_cast<char*>(&r) + offsetof(RawRecord, stack), &tail, sizeof(tail));
  Publish(*ring, head + 1);
  PrefetchForWrite(&RecordAt(*ring, head + kPrefetchAhead));
  ClearScratchRegisters();
}

void WriteEvent(ThreadState& ts, uint64_t seq, format::Api api, HiddenAddress address,
                uint64_t size, uint64_t extra, uint32_t stack) {
  WriteEventHere(ts, seq, api, address, size, extra, stack);
}

void WriteControl(ThreadState& ts, RawRecord r) {
  r.seq = TakeSeq();
  r.time_ns = NowNs(Header(), ts.clock);
  AppendOrCount(ts, [&](RawRecord& slot) { slot = r; });
}

void RecordAlloc(ThreadState& ts, format::Api api, HiddenAddress result, size_t size, size_t extra,
                 uintptr_t hook_frame) {
  // Paused since the hook's check (another thread wrote "heaprec:stop"), or
  // the call that started the recorder paused: not recorded.
  if (__builtin_expect(RecordingPaused(), 0)) return;
  const uint32_t stack = CaptureStack(hook_frame);
  WriteEventHere(ts, TakeSeqHere(ts), api, result, size, extra, stack);
}

void RecordFree(ThreadState& ts, format::Api api, HiddenAddress block, size_t size,
                size_t alignment, uintptr_t hook_frame) {
  // The seq is taken before the capture, as for any free: the block is still
  // live until the real free below returns.
  const uint64_t seq = TakeSeqHere(ts);
  const uint32_t stack =
      g_recorder.config.free_stacks && !RecordingPaused() ? CaptureStack(hook_frame) : 0;
  WriteEventHere(ts, seq, api, block, size, alignment, stack);
}

void ModulesChanged() {
  ThreadState& ts = t_thread_state;
  if (!Enter(ts)) return;
  ScanModules(g_recorder.region);
  Leave(ts);
}

void CountBootstrap() {
  if (g_recorder.mode.load(std::memory_order_acquire) == kOn) {
    Count().bootstrap_allocations.fetch_add(1, std::memory_order_relaxed);
  } else {
    g_recorder.early_calls.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace heaprec::recorder::preload
