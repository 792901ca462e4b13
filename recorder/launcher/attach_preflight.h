// AttachPreflight: whether heaprec -p PID may attach, said before anything
// touches the process, in one line naming the reason and what to do: no such
// process, heaprec itself, already exited, traced by another tracer (a
// debugger, strace), statically linked (no loader to dlopen the recorder),
// another user's process without CAP_SYS_PTRACE, and Yama's
// kernel.yama.ptrace_scope (3: never; 2: CAP_SYS_PTRACE only; 1: ancestors
// only, explained when the kernel refuses: a program may allow its debugger
// with PR_SET_PTRACER, which cannot be read from outside).
//
// Facts are read from /proc (ReadAttachFacts); the decisions are plain
// functions of them, so tests give any facts. Not thread-safe; allocates.
#ifndef HEAPREC_RECORDER_LAUNCHER_ATTACH_PREFLIGHT_H_
#define HEAPREC_RECORDER_LAUNCHER_ATTACH_PREFLIGHT_H_

#include <sys/types.h>

#include <string>

namespace heaprec::recorder::launcher {

struct AttachFacts {
  pid_t pid = 0;
  bool exists = false;
  bool is_self = false;
  bool zombie = false;
  std::string comm;      // the process's name (/proc/PID/comm)
  pid_t tracer = 0;      // TracerPid: another tracer holds it
  bool dynamic = false;  // a dynamic loader is mapped
  uid_t uid = 0;         // the process's real uid
  std::string user;      // its name, or the number
  uid_t our_uid = 0;     // heaprec's effective uid
  bool cap_sys_ptrace = false;
  int ptrace_scope = -1;    // kernel.yama.ptrace_scope; -1 without Yama
  bool descendant = false;  // heaprec is among its ancestors
};

AttachFacts ReadAttachFacts(pid_t pid);

// Why heaprec cannot attach, before it tries; "" if it may try.
std::string WhyCannotAttach(const AttachFacts& f);

// Why the kernel refused ptrace (errno EPERM), from the facts.
std::string WhyPtraceRefused(const AttachFacts& f);

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_ATTACH_PREFLIGHT_H_
