// The one body of every recording hook (hooks_malloc.cc, hooks_new.cc):
// HookScope holds what a hook must hold while it records, and
// RecordedAlloc / RecordedFree are the two shapes of hook, so each hook file
// is a list of entry points that forward to the real allocator.
//
// HookScope, for its life: the re-entry guard (Enter; calls the recorder
// makes meanwhile go straight to the real allocator), and at its end the
// guard released (Leave, which also records a marker whose signal arrived
// meanwhile) with errno as it was. Each Record() runs with errno kept: the
// program sees the errno of its own call (an allocation's ENOMEM), never one
// the recorder caused.
//
// Header-only and inlined into the hooks; no heap; async-signal-safe as the
// recorder is (recorder.h). Used by the hooks only.
#ifndef HEAPREC_RECORDER_PRELOAD_HOOK_SCOPE_H_
#define HEAPREC_RECORDER_PRELOAD_HOOK_SCOPE_H_

#include <errno.h>

#include <cstddef>
#include <cstdint>

#include "format/api.h"
#include "recorder/preload/hidden_address.h"
#include "recorder/preload/real_allocator.h"
#include "recorder/preload/recorder.h"
#include "recorder/preload/recording_switch.h"
#include "recorder/preload/sampler.h"

namespace heaprec::recorder::preload {

class HookScope {
 public:
  HookScope() : ts_(Tls()), recording_(Enter(ts_)) {}
  ~HookScope() {
    if (!recording_) return;
    const int saved = errno;
    Leave(ts_);
    errno = saved;
  }
  HookScope(const HookScope&) = delete;
  HookScope& operator=(const HookScope&) = delete;

  // False: the call is not recorded (re-entered, recorder off, fork window).
  bool recording() const { return recording_; }

  // Runs record(ThreadState&) with errno kept as it is now.
  template <typename F>
  void Record(F record) {
    const int saved = errno;
    record(ts_);
    errno = saved;
  }

 private:
  ThreadState& ts_;
  const bool recording_;
};

// An allocation hook: call() (the real allocation, returning the block or
// nullptr) then, if recording, its record with the hook's stack. Inlined, so
// that the stack starts at the hook's caller. Sampling (sampler.h): an
// allocation not sampled goes straight to call(), before the guard.
template <typename Call>
__attribute__((always_inline)) inline void* RecordedAlloc(format::Api api, size_t size,
                                                          size_t extra, Call call) {
  // The sampler first: an allocation it passes over (nearly all, when
  // sampling) touches nothing shared.
  if (!SampleAllocation(size)) return call();
  if (!AllocationsRecorded()) return call();  // paused (recording_switch.h)
  HookScope scope;
  if (!scope.recording()) return call();
  // The block's address hidden from here on (hidden_address.h): no copy of
  // it is left in the recorder's frames or registers.
  const HiddenAddress p = Hide(call());
  const uintptr_t frame = HEAPREC_HOOK_FRAME();
  scope.Record([&](ThreadState& ts) {
    RecordAlloc(ts, api, p, size, extra, frame);
    if (Sampling() && Reveal(p) != 0) KeepSampled(RevealPointer(p));
  });
  return RevealPointer(p);
}

// A free hook: its record, then the real free. free(NULL) and blocks of the
// bootstrap arena (real_allocator.h) are not recorded; when sampling, neither
// are the blocks whose allocation was not.
__attribute__((always_inline)) inline void RecordedFree(format::Api api, void* p, size_t size,
                                                        size_t alignment) {
  if (p == nullptr || IsBootstrap(p)) return;
  const RealAllocator* real = Real();
  if (real == nullptr) return;  // cannot happen: p came from a resolved allocator
  if (Sampling() && !(MaybeSampled(p) && TakeSampled(p))) return real->free(p);
  const HiddenAddress hidden = Hide(p);  // as in RecordedAlloc
  HookScope scope;
  if (scope.recording()) {
    const uintptr_t frame = HEAPREC_HOOK_FRAME();
    scope.Record([&](ThreadState& ts) { RecordFree(ts, api, hidden, size, alignment, frame); });
  }
  real->free(RevealPointer(hidden));
}

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_HOOK_SCOPE_H_
