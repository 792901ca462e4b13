// Attach: recording a process heaprec did not start (heaprec -p PID). The
// launcher loads libheaprec.so into the running process with the loader's
// dlopen (its constructor finds no session and leaves the recorder off),
// then calls heaprec_attach(settings) on one of its threads (both through
// ptrace: recorder/launcher/remote_call.h). heaprec_attach reads the
// settings the launcher would have put in the environment (one NAME=VALUE
// per line, region_layout.h's names), creates the region in the session
// folder, and routes the process's malloc family, operator new/delete,
// exit/_exit and dlclose to the hooks by rewriting GOT entries
// (got_patch.h). heaprec_detach, called the same way, puts every entry back
// and turns the recorder off; the library stays loaded (-z nodelete) and
// inert, and a later attach reuses it with a new region (the previous one
// is unmapped then).
//
// Modules loaded while attached are routed when a recorded call notices the
// loader's count moved (AttachTick, every kAttachTickCalls calls per thread).
// Not recorded while attached: fork children (they run through the inert
// hooks) and an exec'd image (the launcher ends the trace there).
//
// heaprec_attach/heaprec_detach: not reentrant (the launcher calls one at a
// time); AttachTick: any thread, inside the recorder's guard.
#ifndef HEAPREC_RECORDER_PRELOAD_ATTACH_H_
#define HEAPREC_RECORDER_PRELOAD_ATTACH_H_

#include <cstdint>

#include "format/switch_markers.h"
#include "recorder/preload/export.h"

// Returns 0 when recording, else a negative kAttach* code (attach.cc).
HEAPREC_EXPORT_C int heaprec_attach(const char* settings);
// Returns the number of GOT entries put back, or -1 if not attached.
HEAPREC_EXPORT_C int heaprec_detach(void);

namespace heaprec::recorder::preload {

inline constexpr uint32_t kAttachTickCalls = 4096;

// The markers at the recording's start and end (format/switch_markers.h).
inline constexpr const char* kAttachMarker = format::kAttachLabel;
inline constexpr const char* kDetachMarker = format::kDetachLabel;

// Counts one recorded call of this thread; every kAttachTickCalls, routes
// modules loaded since (got_patch.h PatchNewModules). Leave() calls it while
// RecorderState::attached is set.
void AttachTick(uint32_t& countdown);

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_ATTACH_H_
