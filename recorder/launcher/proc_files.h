// Small reads of /proc for heaprec -p (attach_command, attach_preflight,
// attach_files): a whole text file, and whether a process shares one of
// heaprec's namespaces.
// Allocates; not thread-safe only as the files themselves change.
#ifndef HEAPREC_RECORDER_LAUNCHER_PROC_FILES_H_
#define HEAPREC_RECORDER_LAUNCHER_PROC_FILES_H_

#include <sys/types.h>

#include <string>

namespace heaprec::recorder::launcher {

// The whole file, "" if it cannot be opened; what could be read if a read
// fails (the process ended meanwhile).
std::string ReadProcFile(const std::string& path);

// Whether pid is in heaprec's own namespace of this kind ("pid", "mnt"):
// /proc/self/ns/KIND and /proc/PID/ns/KIND name the same one.
bool SameNamespace(pid_t pid, const char* kind);

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_PROC_FILES_H_
