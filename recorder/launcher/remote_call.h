// RemoteCall: calls functions inside another running process on one of its
// threads, through ptrace, as a debugger's "call" does: heaprec -p loads
// libheaprec.so with the loader's dlopen and calls heaprec_attach and
// heaprec_detach this way (attach_command.h).
//
// Hold() seizes one thread (PTRACE_SEIZE + PTRACE_INTERRUPT: nothing the
// program can see) at a moment when a call is safe there: the thread's
// instruction pointer is outside the C library and the dynamic loader (it
// holds none of their locks: dlopen and malloc take them again), or it waits
// in a system call of the C library that is not one of malloc's (brk, mmap,
// munmap, mprotect, madvise, mremap). Otherwise it lets the thread run a
// moment and looks again, on the main thread first, then on the others
// (those with room on their stack), until the deadline. Call() saves every
// register (general and the whole XSAVE area), runs fn(args) with a return
// address of 0 below a fresh 16-byte aligned frame under the red zone, waits
// for the fault at 0, reads rax and restores the registers; a system call
// the thread was waiting in is restarted when it resumes. Signals that
// arrive for the thread meanwhile are held back and delivered on Release.
// A call that does not return in its time (a lock inside the process that
// is never released) is left running: its thread cannot be restored
// safely, and Call says so.
//
// Not thread-safe; allocates. The launcher must be allowed to ptrace the
// process (attach_preflight.h says why not, beforehand).
#ifndef HEAPREC_RECORDER_LAUNCHER_REMOTE_CALL_H_
#define HEAPREC_RECORDER_LAUNCHER_REMOTE_CALL_H_

#include <sys/types.h>
#include <sys/user.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace heaprec::recorder::launcher {

class RemoteThread {
 public:
  RemoteThread() = default;
  ~RemoteThread() { Release(); }
  RemoteThread(const RemoteThread&) = delete;
  RemoteThread& operator=(const RemoteThread&) = delete;

  // Holds a thread of pid where a call is safe, trying for timeout_ms.
  // False with *error (one line) if none could be held.
  bool Hold(pid_t pid, int timeout_ms, std::string* error);
  pid_t tid() const { return tid_; }

  // Copies bytes into the thread's stack, below the red zone and below what
  // earlier Push calls put there; returns their address in the process (0
  // on error). For a call's string arguments.
  uint64_t Push(const void* bytes, size_t size, std::string* error);

  // Runs fn(args...) (at most 6 integer arguments) on the held thread and
  // returns its rax in *result. False with *error if the process ended, the
  // call faulted elsewhere, or it did not return within timeout_ms.
  bool Call(uint64_t fn, std::initializer_list<uint64_t> args, int timeout_ms, uint64_t* result,
            std::string* error);

  // Reads a NUL-terminated string at address (for dlerror()'s answer).
  std::string ReadString(uint64_t address, size_t max) const;

  // Restores the registers and lets the thread go (idempotent).
  void Release();

 private:
  bool SafeHere(const user_regs_struct& regs) const;

  pid_t pid_ = 0;
  pid_t tid_ = 0;
  bool held_ = false;
  bool faulted_ = false;  // the last stop was our call's return to 0
  user_regs_struct saved_ = {};
  std::vector<uint8_t> xstate_;
  uint64_t stack_top_ = 0;    // where the next Push goes below
  uint64_t stack_floor_ = 0;  // the thread's stack mapping's start
  std::vector<int> signals_;  // held back while holding the thread
  struct Range {
    uint64_t start, end;
    bool loader;  // the dynamic loader: never safe
  };
  std::vector<Range> unsafe_;  // code of the C library and the loader
};

// Absolute address of symbol (a dynamic symbol) in the module of pid whose
// file name starts with module_prefix ("libc.so", "libheaprec.so"), or the
// exact path when module_prefix starts with '/'. 0 with *error if the module
// is not loaded or has no such symbol.
uint64_t RemoteSymbol(pid_t pid, const std::string& module_prefix, const std::string& symbol,
                      std::string* error);

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_REMOTE_CALL_H_
