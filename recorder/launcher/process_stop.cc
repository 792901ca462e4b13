// Stopping a process's threads with ptrace and letting them go (process_stop.h).
#include "recorder/launcher/process_stop.h"

#include <dirent.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace heaprec::recorder::launcher {

std::vector<pid_t> ProcessStop::Tasks() const {
  std::vector<pid_t> tids;
  const std::string dir = "/proc/" + std::to_string(pid_) + "/task";
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* ent = readdir(d)) {
      if (ent->d_name[0] >= '0' && ent->d_name[0] <= '9') tids.push_back(std::atoi(ent->d_name));
    }
    closedir(d);
  }
  std::sort(tids.begin(), tids.end());
  return tids;
}

// Attaches tid and waits until it stops. A signal that comes first stops it
// too (signal-delivery-stop): kept, to be delivered when it is let go.
bool ProcessStop::Seize(pid_t tid) {
  if (ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) return false;
  StoppedThread t;
  t.tid = tid;
  if (ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0) {
    ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
    return false;
  }
  for (;;) {
    // Looked at first and left in place if it is an exit: the launcher's
    // loop reaps its own child and must see its status.
    siginfo_t info = {};
    if (waitid(P_PID, static_cast<id_t>(tid), &info, WEXITED | WSTOPPED | WNOWAIT | __WALL) != 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (info.si_code != CLD_STOPPED && info.si_code != CLD_TRAPPED) return false;  // it exited
    int status = 0;
    const pid_t r = waitpid(tid, &status, __WALL);
    if (r < 0 && errno == EINTR) continue;
    if (r != tid || !WIFSTOPPED(status)) return false;
    const int event = status >> 16;
    if (event == PTRACE_EVENT_STOP) break;
    // A signal-delivery-stop: the thread is stopped; the interrupt's own
    // stop would follow on resuming, so hold it here and deliver the signal
    // on release.
    t.pending_signal = WSTOPSIG(status);
    break;
  }
  if (ptrace(PTRACE_GETREGS, tid, nullptr, &t.regs) != 0) {
    ptrace(PTRACE_DETACH, tid, nullptr, reinterpret_cast<void*>(intptr_t{t.pending_signal}));
    return false;
  }
  threads_.push_back(t);
  return true;
}

bool ProcessStop::Stop(pid_t pid, std::string* error) {
  Release();
  pid_ = pid;
  int first_errno = 0;
  std::vector<pid_t> tried;
  for (int round = 0; round < 100; ++round) {
    bool any_new = false;
    for (const pid_t tid : Tasks()) {
      if (std::find(tried.begin(), tried.end(), tid) != tried.end()) continue;
      tried.push_back(tid);
      any_new = true;
      errno = 0;
      if (!Seize(tid) && first_errno == 0) first_errno = errno;
    }
    if (!any_new) break;
  }
  if (threads_.empty()) {
    *error = first_errno == EPERM
                 ? "ptrace is not allowed here (another tracer, or the kernel's ptrace_scope)"
                 : std::string("ptrace: ") + std::strerror(first_errno != 0 ? first_errno : ESRCH);
    return false;
  }
  return true;
}

void ProcessStop::Release() {
  for (const StoppedThread& t : threads_) {
    ptrace(PTRACE_DETACH, t.tid, nullptr, reinterpret_cast<void*>(intptr_t{t.pending_signal}));
  }
  threads_.clear();
}

}  // namespace heaprec::recorder::launcher
