// The recorder inside the traced process: turns each intercepted call into a
// record in the calling thread's ring, with a sequence number and a stack id.
//
// Hot-path rules (docs/STYLE.md): a thread-local re-entry guard comes first,
// so calls made while recording go straight to the real allocator; no heap,
// no locks on the fast path (each thread owns a ring: ring_writer.h); errno
// is saved and restored (hook_scope.h); a full ring makes the thread wait
// for the launcher, and a dead launcher makes the recorder stop and count.
// Order (seq_counter.h): an allocation takes its seq after the real call
// returns, a free before the real call runs, so no free ever precedes the
// allocation it frees in seq order.
//
// Called by the hooks (hooks_*.cc, through hook_scope.h) and the heaprec_*
// C API. Async-signal-safe only through Marker() (which defers itself inside
// a hook).
#ifndef HEAPREC_RECORDER_PRELOAD_RECORDER_H_
#define HEAPREC_RECORDER_PRELOAD_RECORDER_H_

#include <cstddef>
#include <cstdint>

#include "format/api.h"
#include "recorder/preload/hidden_address.h"
#include "recorder/preload/record_clock.h"
#include "recorder/preload/ring_writer.h"
#include "recorder/preload/sampled_set.h"

namespace heaprec::recorder::preload {

// Per-thread state. Zero-initialized TLS (initial-exec): no constructor runs.
struct ThreadState {
  uint32_t guard;             // > 0 while inside the recorder or a real call
  uint32_t in_fork;           // between the fork prepare and child/parent handlers
  uint32_t generation;        // region generation the ring belongs to
  uint32_t pending;           // signals that arrived inside the recorder (kPending*)
  uint32_t exiting;           // the thread-exit destructor ran
  uint32_t attach_countdown;  // recorded calls to the next AttachTick (attach.h)
  RingCursor ring;            // this thread's ring; ring.ring == nullptr if none
  ThreadClock clock;          // times of its records
};

// ThreadState::pending: what Leave() does for a signal that came while the
// guard was held.
inline constexpr uint32_t kPendingMarker = 1;  // the marker signal
inline constexpr uint32_t kPendingScan = 2;    // the leak-check signal
// Not a signal: --precise-times, the hook's end is to be timed
// (record_clock.h HookEnds).
inline constexpr uint32_t kPendingClock = 4;

// The calling thread's state (defined in recorder.cc).
extern __thread ThreadState t_thread_state __attribute__((tls_model("initial-exec")));
inline ThreadState& Tls() { return t_thread_state; }

// Enters the recorder if this call should be recorded: not re-entrant, the
// recorder is on, not in a fork window. On true the guard is held: call
// Leave() after the record (HookScope does both). On false the caller
// forwards without recording.
bool Enter(ThreadState& ts);
void Leave(ThreadState& ts);

// A seq reserved now and written later (frees and reallocs take theirs
// before the real call).
uint64_t TakeSeq();

// Captures the caller's stack (without the recorder's frames) and returns its
// id, or 0. hook_frame: __builtin_frame_address(0) of the hook the program
// called (or of any recorder function between it and here): the capture
// starts at that function's caller, without walking the recorder's frames
// (FastBacktrace's start_fp); 0 walks them and drops them.
uint32_t CaptureStack(uintptr_t hook_frame);

// Writes one event record with the given seq (address revealed only for the
// store: hidden_address.h).
void WriteEvent(ThreadState& ts, uint64_t seq, format::Api api, HiddenAddress address,
                uint64_t size, uint64_t extra, uint32_t stack);

// Allocations (after the real call): seq now, stack now
// (CaptureStack(hook_frame)), write; nothing while recording is paused
// (recording_switch.h).
void RecordAlloc(ThreadState& ts, format::Api api, HiddenAddress result, size_t size, size_t extra,
                 uintptr_t hook_frame);

// Frees (before the real free): seq now, the stack only with heaprec
// --free-stacks and not paused (else 0), write.
void RecordFree(ThreadState& ts, format::Api api, HiddenAddress block, size_t size,
                size_t alignment, uintptr_t hook_frame);

// Sampling mode (sampler.h): KeepSampled notes a sampled block whose
// allocation was just recorded (counted as unkept_samples if the set has no
// room); TakeSampled forgets a block about to be freed and says whether it
// was a sampled one (then its free is recorded). Lock-free, no heap.
void KeepSampled(const void* block);
bool TakeSampled(const void* block);
// False if block is certainly not a sampled one (inline, no call: most
// frees end here).
extern SampledSet g_sampled_blocks;
inline bool MaybeSampled(const void* block) {
  return g_sampled_blocks.MayContain(reinterpret_cast<uintptr_t>(block));
}
// The set's memory (for the leak scan to leave out), nullptr if none.
const void* SampledSetMemory(size_t* bytes);

// The frame of the function this is used in, for hook_frame.
#define HEAPREC_HOOK_FRAME() reinterpret_cast<uintptr_t>(__builtin_frame_address(0))

// Records a marker with this label (NUL-terminated; cut to fit); nullptr
// names it "signal-N" (the marker signal).
void Marker(const char* label);
// Records that thread tid is now named name (up to 15 bytes).
void ThreadRenamed(int32_t tid, const char* name);
// Logs module changes (after dlopen/dlclose).
void ModulesChanged();

// Counts a call served while the real allocator was being resolved.
void CountBootstrap();

// Library constructor: resolves the real allocator, creates the region if a
// launcher is present, installs fork and thread-exit handlers.
void Initialize();

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_RECORDER_H_
