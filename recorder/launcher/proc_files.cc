// ProcFiles (proc_files.h).
#include "recorder/launcher/proc_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace heaprec::recorder::launcher {

std::string ReadProcFile(const std::string& path) {
  // read(2), not a stream: a process that ends while its file is read fails
  // the read (ESRCH), which libstdc++'s filebuf throws through an
  // istreambuf_iterator, and heaprec -p ended on it (attach_test: a target
  // exiting while attached, once in a few runs). What was read is returned.
  std::string out;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  close(fd);
  return out;
}

bool SameNamespace(pid_t pid, const char* kind) {
  struct stat ours, theirs;
  const std::string name = std::string("/ns/") + kind;
  return stat(("/proc/self" + name).c_str(), &ours) == 0 &&
         stat(("/proc/" + std::to_string(pid) + name).c_str(), &theirs) == 0 &&
         ours.st_ino == theirs.st_ino && ours.st_dev == theirs.st_dev;
}

}  // namespace heaprec::recorder::launcher
