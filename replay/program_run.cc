// One run of the program under one allocator (program_run.h).
#include "replay/program_run.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace heaprec::replay {
namespace {

double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

double Seconds(const timeval& tv) { return double(tv.tv_sec) + double(tv.tv_usec) / 1e6; }

// In the child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void ExecChild(char* const* argv, char* const* envp, ProgramOutput output,
                            int report_fd) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  const int null_fd = open("/dev/null", O_RDWR);
  if (null_fd >= 0) {
    dup2(null_fd, 0);
    if (output == ProgramOutput::kDiscard) {
      dup2(null_fd, 1);
      dup2(null_fd, 2);
    }
    if (null_fd > 2) close(null_fd);
  }
  if (output == ProgramOutput::kToStderr) dup2(2, 1);
  execvpe(argv[0], argv, envp);
  const int err = errno;
  (void)!write(report_fd, &err, sizeof err);
  _exit(127);
}

}  // namespace

bool RunProgramOnce(const std::vector<std::string>& command, const AllocatorSpec& allocator,
                    ProgramOutput output, ProgramRun* run, std::string* error) {
  // Everything the child needs is built before the fork.
  std::vector<std::string> env_strings;
  std::string preload = allocator.library;
  if (const char* old = getenv("LD_PRELOAD"); old != nullptr && *old != '\0') {
    preload += (preload.empty() ? "" : ":") + std::string(old);
  }
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "LD_PRELOAD=", 11) != 0) env_strings.push_back(*e);
  }
  if (!preload.empty()) env_strings.push_back("LD_PRELOAD=" + preload);
  std::vector<char*> envp, argv;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  const double start = Now();
  const pid_t pid = fork();
  if (pid < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    close(report[0]);
    close(report[1]);
    return false;
  }
  if (pid == 0) ExecChild(argv.data(), envp.data(), output, report[1]);
  close(report[1]);
  int err = 0;
  ssize_t n;
  do {
    n = read(report[0], &err, sizeof err);
  } while (n < 0 && errno == EINTR);
  close(report[0]);
  int status = 0;
  rusage usage = {};
  pid_t reaped;
  do {
    reaped = wait4(pid, &status, 0, &usage);
  } while (reaped < 0 && errno == EINTR);
  const double end = Now();
  if (n == sizeof err) {
    *error = "cannot run '" + command[0] + "': " + std::strerror(err);
    return false;
  }
  run->wall_s = end - start;
  run->cpu_s = Seconds(usage.ru_utime) + Seconds(usage.ru_stime);
  run->max_rss_bytes = static_cast<uint64_t>(usage.ru_maxrss) * 1024;
  run->exit_code = WIFEXITED(status)     ? WEXITSTATUS(status)
                   : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                         : 1;
  return true;
}

}  // namespace heaprec::replay
