// ProcessStop: holds every thread of a traced process still, with ptrace,
// while the launcher reads its memory for a leak scan, and lets it go again
// exactly as it was (threads resume where they stopped; a system call that
// was waiting is restarted; a signal that arrived meanwhile is delivered).
//
// Each thread is attached with PTRACE_SEIZE (no signal is sent, nothing the
// program can see) and stopped with PTRACE_INTERRUPT; threads made while
// stopping are found by reading /proc/PID/task again until no new one
// appears. Release() (or the destructor) detaches them all. Attaching needs
// the permission ptrace asks for (the launcher is the traced process's
// ancestor, which Yama's default scope 1 allows); where it is refused,
// Stop() says why and holds nothing.
//
// Not thread-safe: the launcher's main thread, which must not wait for
// children (waitpid(-1)) while a process is held. Allocates.
#ifndef HEAPREC_RECORDER_LAUNCHER_PROCESS_STOP_H_
#define HEAPREC_RECORDER_LAUNCHER_PROCESS_STOP_H_

#include <sys/types.h>
#include <sys/user.h>

#include <string>
#include <vector>

namespace heaprec::recorder::launcher {

struct StoppedThread {
  pid_t tid = 0;
  user_regs_struct regs = {};
  int pending_signal = 0;  // a signal that stopped it instead: delivered on release
};

class ProcessStop {
 public:
  ProcessStop() = default;
  ~ProcessStop() { Release(); }
  ProcessStop(const ProcessStop&) = delete;
  ProcessStop& operator=(const ProcessStop&) = delete;

  // Stops every thread of pid. False, with *error saying why (in one
  // phrase), if it could not hold a single one (then nothing is held); a
  // thread that exits meanwhile is simply not in threads().
  bool Stop(pid_t pid, std::string* error);
  // Lets every held thread go.
  void Release();
  bool held() const { return !threads_.empty(); }
  const std::vector<StoppedThread>& threads() const { return threads_; }

 private:
  bool Seize(pid_t tid);
  std::vector<pid_t> Tasks() const;

  pid_t pid_ = 0;
  std::vector<StoppedThread> threads_;
};

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_PROCESS_STOP_H_
