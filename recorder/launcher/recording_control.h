// `heaprec --start PID` and `heaprec --stop PID`: switch the recording of
// allocations on or off in a process another heaprec records (started with
// --start-paused, or to pause a part of its run). Run from another shell;
// PID is the traced process as `ps` shows it.
//
// How: the traced process maps its region file (recorder/shared/
// region_layout.h) from heaprec's session folder, whose name is unlinked once
// its heaprec adopted it; that heaprec keeps the file open
// (launcher/region_reader.h). This command finds the region's name in
// /proc/PID/maps, its heaprec from HEAPREC_LAUNCHER in /proc/PID/environ
// (else among the processes named heaprec), reopens the file through
// /proc/<heaprec>/fd, and changes the header's recording_switch; the
// recorder applies it at the process's next allocation or free and writes
// the marker "heaprec:start" or "heaprec:stop" there
// (recorder/preload/recording_switch.h). Needs no ptrace: the same user's
// /proc files are enough.
//
// Allocates; not thread-safe; used by main().
#ifndef HEAPREC_RECORDER_LAUNCHER_RECORDING_CONTROL_H_
#define HEAPREC_RECORDER_LAUNCHER_RECORDING_CONTROL_H_

#include <sys/types.h>

#include <string>

namespace heaprec::recorder::launcher {

struct ControlOutcome {
  // 0: switched, or already in that state (idempotent); 1: PID is not a
  // process heaprec records here (no such process, not recorded by heaprec,
  // not ours, its heaprec gone).
  int exit_code = 1;
  std::string line;  // one line for stderr (or stdout on success), no newline
};

// start: record allocations again; else pause.
ControlOutcome SwitchRecording(pid_t pid, bool start);

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_RECORDING_CONTROL_H_
