// Whether heaprec can trace a program before it runs it. heaprec reaches a
// program through LD_PRELOAD, which the dynamic loader honours only for a
// dynamically linked program whose start changes no credentials: a
// statically linked one has no loader, and for a setuid, setgid or
// file-capability program the loader runs in secure mode (AT_SECURE) and
// ignores LD_PRELOAD paths. Tracing either would write no trace; heaprec says
// why instead.
//
// Allocates; reads the file; used by main() before the fork.
#ifndef HEAPREC_RECORDER_LAUNCHER_TRACEABLE_H_
#define HEAPREC_RECORDER_LAUNCHER_TRACEABLE_H_

#include <sys/types.h>

#include <string>

namespace heaprec::recorder::launcher {

// The file execvp would run for command: command itself if it holds a '/',
// else the first executable regular file of that name in PATH (execvp's
// default path if PATH is unset). "" if there is none (exec reports that).
std::string ResolveCommand(const std::string& command);

// Why the program at path cannot be traced when started by a process with
// real ids uid/gid ("it is statically linked", "it is setuid to uid 0", ...),
// or "" if it can be, or if that cannot be told (not ELF: a script's
// interpreter is what runs; unreadable: exec reports it).
std::string WhyUntraceable(const std::string& path, uid_t uid, gid_t gid);

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_TRACEABLE_H_
