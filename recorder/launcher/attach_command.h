// heaprec -p PID [--duration TIME]: records a process that is already
// running, then leaves it as it was.
//
// Steps: the preflight (attach_preflight.h: one line and exit 2 where the
// kernel or the process forbids it); a session folder the process can write
// to; libheaprec.so loaded into the process with the loader's dlopen and
// heaprec_attach(settings) called there (remote_call.h; the recorder then
// routes the process's allocation calls to itself: recorder/preload/attach.h);
// the usual loop that drains the region into a trace, until the duration
// ends, Ctrl-C (or SIGTERM/SIGHUP), the process ends, or it execs another
// program; then heaprec_detach() called the same way, the last records
// drained, the trace finished, the region's memory given back.
//
// The pid is as heaprec sees it (the host's, for a process in a container's
// PID namespace). Exit status: 0 when a trace was written, 1 when attaching
// failed after the preflight, 2 for a refusal before touching the process.
// Not thread-safe; allocates; used by main().
#ifndef HEAPREC_RECORDER_LAUNCHER_ATTACH_COMMAND_H_
#define HEAPREC_RECORDER_LAUNCHER_ATTACH_COMMAND_H_

#include "recorder/launcher/options.h"

namespace heaprec::recorder::launcher {

int RunAttach(const Options& options);

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_ATTACH_COMMAND_H_
