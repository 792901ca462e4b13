// Helpers for the end-to-end tests (e2e_util.h).
#include "tests/e2e_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <limits.h>
#include <poll.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

extern char** environ;

namespace heaprec::tests {

std::string Runfile(const std::string& workspace_relative) {
  if (const char* srcdir = getenv("TEST_SRCDIR"); srcdir != nullptr && *srcdir != '\0') {
    const std::string path = std::string(srcdir) + "/heaprec/" + workspace_relative;
    if (access(path.c_str(), F_OK) == 0) return path;
  }
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof(cwd)) == nullptr) return workspace_relative;
  return std::string(cwd) + "/" + workspace_relative;
}

ProcessResult RunProgram(const std::vector<std::string>& argv) {
  ProcessResult result;
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return result;
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    result.err = "posix_spawn " + argv[0] + ": " + std::strerror(rc);
    return result;
  }
  // Read both pipes until both reach end of file.
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      const ssize_t n = read(fds[i].fd, buf, sizeof(buf));
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (const pollfd& p : fds) {
    if (p.fd >= 0) close(p.fd);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.wait_status = status;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  return result;
}

ProcessResult RunHeaprec(const std::string& output, const std::vector<std::string>& argv) {
  std::vector<std::string> command = {Runfile("recorder/heaprec"), "-q", "-o", output, "--"};
  command.insert(command.end(), argv.begin(), argv.end());
  return RunProgram(command);
}

std::string MakeTempDir(const std::string& name) {
  std::string base = ::testing::TempDir();
  if (!base.empty() && base.back() != '/') base += '/';
  std::string templ = base + name + ".XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) return "";
  return templ;
}

std::vector<std::string> ListFiles(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> files;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* ent = readdir(d)) {
      const std::string name = ent->d_name;
      if (name.size() >= suffix.size() &&
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
        files.push_back(dir + "/" + name);
      }
    }
    closedir(d);
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) {
    if (!out.empty()) out += ", ";
    out += s;
  }
  return out;
}

Recording Record(const std::string& name, const std::vector<std::string>& argv) {
  Recording r;
  r.dir = MakeTempDir(name);
  r.run = RunHeaprec(r.dir + "/trace.%p.zst", argv);
  r.traces = ListFiles(r.dir, ".zst");
  return r;
}

TraceSummary RecordOneTrace(const std::string& name, const std::vector<std::string>& argv,
                            int exit_code, const std::optional<std::string>& out) {
  const Recording r = Record(name, argv);
  EXPECT_EQ(r.run.exit_code, exit_code) << r.run.err;
  if (out) EXPECT_EQ(r.run.out, *out);
  EXPECT_EQ(r.traces.size(), 1u) << Join(r.traces) << "\n" << r.run.err;
  if (r.traces.size() != 1) return {};
  TraceSummary s = SummarizeTrace(r.traces[0]);
  ExpectConsistent(s);
  return s;
}

void ExpectSite(const TraceSummary& s, const std::string& name, const SiteExpectation& want) {
  SCOPED_TRACE("site " + name);
  const SiteStats* site = s.Site(name);
  if (site == nullptr) {
    ADD_FAILURE() << "no site named '" << name << "' in\n" << s.ToString();
    return;
  }
  EXPECT_EQ(FormatApiCounts(site->calls), FormatApiCounts(want.calls)) << s.ToString();
  EXPECT_EQ(site->allocations, want.allocations);
  EXPECT_EQ(site->reallocs, want.reallocs);
  EXPECT_EQ(site->failed, want.failed);
  EXPECT_EQ(site->bytes, want.bytes);
  EXPECT_EQ(FormatApiCounts(site->released_by), FormatApiCounts(want.released_by));
  uint64_t released = 0;
  for (const auto& [api, n] : want.released_by) released += n;
  EXPECT_EQ(site->released_blocks, released);
  EXPECT_EQ(site->leaked_blocks, want.leaked_blocks);
  EXPECT_EQ(site->leaked_bytes, want.leaked_bytes);
}

void ExpectConsistent(const TraceSummary& s) {
  SCOPED_TRACE("trace of " + s.process.program + " (pid " + std::to_string(s.process.pid) + ")");
  EXPECT_EQ(s.read.status, format::ReadResult::kComplete) << s.read.message;
  EXPECT_TRUE(s.has_process);
  ASSERT_TRUE(s.has_end);
  EXPECT_EQ(s.events, s.end.events);
  EXPECT_EQ(s.total.usage_allocs, s.end.allocations);
  EXPECT_EQ(s.total.usage_frees, s.end.frees);
  EXPECT_EQ(s.total.bytes, s.end.bytes_allocated);
  for (const char* counter : {"dropped_events", "unreadable_stacks", "stack_table_full"}) {
    EXPECT_EQ(s.Counter(counter), 0) << counter;
  }
}

pid_t StartInBackground(const std::vector<std::string>& argv, const std::string& out,
                        const std::string& err) {
  unlink(out.c_str());
  unlink(err.c_str());
  const pid_t pid = fork();
  if (pid == 0) {
    const int in_fd = open("/dev/null", O_RDONLY);
    const int out_fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err_fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(in_fd, 0);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

std::string ReadTextFile(const std::string& path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void TouchFile(const std::string& path) {
  const int fd = open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
  EXPECT_GE(fd, 0) << path << ": " << std::strerror(errno);
  if (fd >= 0) close(fd);
}

bool WaitForFile(const std::string& path, long timeout_ms) {
  const timespec tick = {0, 5 * 1000 * 1000};
  for (long waited = 0; waited < timeout_ms; waited += 5) {
    if (access(path.c_str(), F_OK) == 0) return true;
    nanosleep(&tick, nullptr);
  }
  return false;
}

}  // namespace heaprec::tests
