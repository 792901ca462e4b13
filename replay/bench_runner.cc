// Spawning a bench worker and reading its result (bench_runner.h).
#include "replay/bench_runner.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "replay/bench_worker.h"

extern char** environ;

namespace heaprec::replay {

namespace {

std::vector<std::string> WorkerEnvironment(const AllocatorSpec& spec) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "LD_PRELOAD=", 11) != 0) env.emplace_back(*e);
  }
  if (!spec.library.empty()) env.push_back("LD_PRELOAD=" + spec.library);
  return env;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> p;
  for (std::string& s : strings) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

std::string ReadAll(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return out;
    out.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace

bool RunWorker(int image_fd, const AllocatorSpec& spec, const std::string& touch, bool null,
               bool plot, RunSample* sample, std::string* error) {
  const std::string who = null ? "null replay" : spec.name;
  std::vector<std::string> args = {"heapreplay",
                                   kWorkerFlag,
                                   std::to_string(image_fd),
                                   spec.name,
                                   spec.library.empty() ? "-" : spec.library,
                                   spec.marker.empty() ? "-" : spec.marker,
                                   touch,
                                   null ? "null" : "real",
                                   plot ? "plot" : "noplot"};
  std::vector<std::string> env = WorkerEnvironment(spec);
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    *error = who + ": pipe: " + std::strerror(errno);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  pid_t pid = 0;
  timespec spawned;
  clock_gettime(CLOCK_MONOTONIC, &spawned);
  const int rc = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, Pointers(args).data(),
                             Pointers(env).data());
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (rc != 0) {
    close(out[0]);
    *error = who + ": cannot start a worker: " + std::strerror(rc);
    return false;
  }
  const std::string text = ReadAll(out[0]);
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 1) {
    error->clear();  // the worker said what was wrong, in one line
    return false;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    *error = who + ": the replay worker failed (" +
             (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                  : "exit " + std::to_string(WEXITSTATUS(status))) +
             ")";
    return false;
  }
  if (!ParseSample(text, sample)) {
    *error = who + ": unreadable worker result '" + text + "'";
    return false;
  }
  sample->spawn_ns = uint64_t(spawned.tv_sec) * 1000000000u + uint64_t(spawned.tv_nsec);
  return true;
}

}  // namespace heaprec::replay
