// The recorder's process-wide state and the steps its parts share
// (recorder.cc: entering, stacks, events; control_records.cc: markers,
// thread names; fork_handlers.cc: fork). Internal to the recorder: the hooks
// use recorder.h and hook_scope.h.
//
// g_recorder is constant-initialized (no constructor runs: malloc may be
// called before any). Fields other than the atomics are written only while
// one thread initializes the recorder or in a fork child before it records.
// Never allocates.
#ifndef HEAPREC_RECORDER_PRELOAD_RECORDER_STATE_H_
#define HEAPREC_RECORDER_PRELOAD_RECORDER_STATE_H_

#include <pthread.h>

#include <atomic>
#include <cstdint>

#include "recorder/preload/config.h"
#include "recorder/preload/recorder.h"
#include "recorder/preload/ring_writer.h"
#include "recorder/shared/region_layout.h"

namespace heaprec::recorder::preload {

enum Mode : int { kUninit = 0, kInitializing = 1, kOn = 2, kOff = 3 };

struct RecorderState {
  RegionView region;
  std::atomic<int> mode{kUninit};
  // Bumped when a fork child switches to its own region: a thread's ring and
  // stack cache of an older generation are not used.
  std::atomic<uint32_t> generation{1};
  Config config;
  uintptr_t own_start = 0, own_end = 0;  // libheaprec.so's code, cut from stacks
  pthread_key_t exit_key = 0;            // its destructor releases the thread's ring
  uint64_t fork_seq = 0;                 // the seq a fork happened at, for the child
  std::atomic<uint32_t> signal_markers{0};
  // Calls made before the region existed (forwarded unrecorded), for the counter.
  std::atomic<uint64_t> early_calls{0};
  // The leak scan at the process's end has been asked for (once per image).
  std::atomic<uint32_t> final_scan{0};
  // 1 while heaprec -p has the process's calls routed here (attach.h).
  std::atomic<uint32_t> attached{0};
};

extern RecorderState g_recorder;

inline RegionHeader& Header() { return *g_recorder.region.header(); }
inline Counters& Count() { return g_recorder.region.header()->counters; }

// Appends one record to the thread's ring, filled by fill(RawRecord&) (every
// field); counts it as dropped if it could not be written.
template <typename Fill>
inline void AppendOrCount(ThreadState& ts, Fill fill) {
  if (!AppendWith(g_recorder.region, g_recorder.config.launcher_pid, ts.ring, fill)) {
    Count().dropped_events.fetch_add(1, std::memory_order_relaxed);
  }
}

// Writes a control record (r: api and payload) with a seq and time taken now.
void WriteControl(ThreadState& ts, RawRecord r);

// Logs a label (nullptr: "signal-N") in the region's label log for the
// launcher; returns its index, or UINT64_MAX (counted) when the log is full
// (control_records.cc).
uint64_t LogLabel(const char* label);

// Writes a marker with this label (nullptr: "signal-N") with the guard held
// (control_records.cc).
void WriteMarkerLocked(ThreadState& ts, const char* label);

// The thread's first record in a ring: its tid and name (control_records.cc).
void WriteThreadStart(ThreadState& ts, int32_t tid);

// Installs the marker signal's handler unless the program has its own
// (control_records.cc).
void InstallMarkSignal();

// Writes the recorder's own memory (unwinding tables and scratch) into the
// region header, for the leak scan to leave out (recorder.cc).
void AnnounceOwnMemory();

// Registers the fork handlers (fork_handlers.cc).
void InstallForkHandlers();

// Sampling mode on (c->sample_rate != 0) needs the sampled set's memory
// (mapped once, emptied when a later attach starts again); without it the
// recorder records every call (c->sample_rate = 0) (recorder.cc).
void StartSampling(Config* c);

// Creates the key whose destructor releases an exiting thread's ring and
// ThreadBlock (recorder.cc).
void InstallThreadExit();

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_RECORDER_STATE_H_
