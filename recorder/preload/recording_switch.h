// Recording switched off and on while the program runs: heaprec
// --start-paused, `heaprec --start PID` / `--stop PID` (the launcher writes
// RegionHeader::recording_switch) and the switch signal (--switch-signal N;
// each delivery toggles). The word's states are region_layout.h's kSwitch*.
//
// While paused, allocations go straight to the real allocator (no seq, no
// stack: AllocationsRecorded() is the one check in the allocation hooks);
// frees and the release of a block by realloc are still recorded, without a
// stack, so that a block made while recording and freed while paused is not
// counted as leaked. A switch asked for takes effect at the next hook of any
// thread, which writes the marker "heaprec:stop" or "heaprec:start"
// (format/switch_markers.h) at that place in the seq order.
//
// Inheritance: a fork child starts in its parent's state; an exec'd image in
// the state its predecessor was in when it exec'd: each switch writes the
// state to "<session>/<pid>.<start time>.switch" (pid and start time stay
// the same across exec), which a new image reads first; without one, it
// starts as heaprec said (--start-paused: HEAPREC_PAUSED=1).
//
// No heap, no locks; the signal handler only toggles the word
// (async-signal-safe). Used by the hooks (hook_scope.h, hooks_malloc.cc),
// Enter() and the recorder's init and fork handlers.
#ifndef HEAPREC_RECORDER_PRELOAD_RECORDING_SWITCH_H_
#define HEAPREC_RECORDER_PRELOAD_RECORDING_SWITCH_H_

#include <atomic>
#include <cstdint>

#include "recorder/preload/recorder.h"
#include "recorder/shared/region_layout.h"

namespace heaprec::recorder::preload {

// The region's recording_switch once the process records; until then a word
// that reads kSwitchRecording (the calls are not recorded for other reasons).
extern std::atomic<uint32_t>* g_switch_word;

// Cold path of AllocationsRecorded(): applies a switch asked for (through
// Enter, which writes its marker) when this thread can; true if allocations
// are recorded after it.
bool ApplySwitchNow();

// Whether an allocation made now is recorded: one relaxed load while
// recording (the allocation hooks' one check; a paused allocation costs no
// more than this load and a compare).
__attribute__((always_inline)) inline bool AllocationsRecorded() {
  const uint32_t w = g_switch_word->load(std::memory_order_relaxed);
  return __builtin_expect(w == kSwitchRecording, 1) || (w != kSwitchPaused && ApplySwitchNow());
}

// Inside a hook's scope (Enter applied any switch asked for): paused now.
inline bool RecordingPaused() {
  return (g_switch_word->load(std::memory_order_relaxed) & kSwitchPausedNow) != 0;
}

// A switch was asked for and not yet applied (for Enter).
inline bool SwitchAsked(uint32_t w) { return w == kSwitchPauseWanted || w == kSwitchPausedNow; }

// With the guard held and a ring claimed (Enter): applies the switch asked
// for and writes its marker (once, whichever thread gets there first).
void ApplySwitchLocked(ThreadState& ts);

// Whether this image starts paused (RegionSettings::start_paused): as the
// image it was exec'd from was, else as heaprec said (Config::start_paused);
// a fork child as its parent is. Before its region is created; may change
// errno.
bool PausedAtStart();
bool PausedAtStartAfterFork(const RegionHeader& parent);
// The region was created (its word set from RegionSettings::start_paused):
// the hooks read its word from now on. Before recording starts.
void UseSwitch(RegionHeader& h);

// The process stopped recording (a fork child not followed): the hooks read
// the word of no region again.
void ForgetSwitch();

// Installs the switch signal's handler (Config::switch_signal) unless the
// program has its own.
void InstallSwitchSignal();

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_RECORDING_SWITCH_H_
