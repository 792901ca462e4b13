// heaprec's checks before running (preflight.h).
#include "recorder/launcher/preflight.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "analyzers/human_bytes.h"
#include "recorder/launcher/output_path.h"

namespace heaprec::recorder::launcher {
namespace {

// %n as the session names the first process: argv[0]'s last component.
std::string ProgramName(const std::string& command) {
  std::string name = command.substr(command.rfind('/') + 1);
  for (char& c : name) {
    if (c == ' ') c = '_';
  }
  return name.empty() ? "program" : name;
}

// What keeps a new file from being made in `dir`, or "".
std::string FolderProblem(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) {
    return errno == ENOENT ? "folder " + dir + " does not exist"
                           : "cannot reach folder " + dir + ": " + std::strerror(errno);
  }
  if (!S_ISDIR(st.st_mode)) return dir + " is not a folder";
  const std::string probe = dir + "/.heaprec-probe." + std::to_string(getpid());
  const int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return "cannot create a file in " + dir + ": " + std::strerror(errno);
  close(fd);
  unlink(probe.c_str());
  struct statvfs fs;
  if (statvfs(dir.c_str(), &fs) == 0) {
    if (const std::string room = RoomProblem(fs, kOutputMinFreeBytes); !room.empty()) {
      return dir + " has " + room;
    }
  }
  return "";
}

}  // namespace

std::string OutputProblem(const std::string& pattern, const std::string& program) {
  const std::string written = pattern.empty() ? "heaprec.%n.%p.zst" : pattern;
  const size_t slash = written.rfind('/');
  const std::string dir_pattern = slash == std::string::npos ? "." : written.substr(0, slash);
  if (dir_pattern.find("%p") != std::string::npos) return "";
  const std::string path = ExpandPattern(written, 0, ProgramName(program));
  const std::string what =
      "cannot write " + (pattern.empty() ? "traces in the current folder" : pattern);
  struct stat st;
  if (slash == written.size() - 1 || (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))) {
    const std::string folder = slash == written.size() - 1 ? written.substr(0, slash) : written;
    return what + ": it names a folder; name a file in it, e.g. -o " + folder + "/%n.%p.zst";
  }
  const size_t path_slash = path.rfind('/');
  std::string dir = path_slash == std::string::npos ? "."
                    : path_slash == 0               ? "/"
                                                    : path.substr(0, path_slash);
  // The current folder by its name, as the user would look for it.
  if (char cwd[4096]; dir == "." && getcwd(cwd, sizeof(cwd)) != nullptr) dir = cwd;
  const std::string problem = FolderProblem(dir);
  return problem.empty() ? "" : what + ": " + problem;
}

std::string RoomProblem(const struct statvfs& fs, uint64_t need) {
  const uint64_t free_bytes = uint64_t{fs.f_bavail} * fs.f_frsize;
  if (free_bytes >= need) return "";
  return analyzers::HumanBytes(free_bytes) + " free, heaprec needs " + analyzers::HumanBytes(need);
}

std::vector<std::string> SessionBases() {
  std::vector<std::string> bases = {"/dev/shm"};
  if (const char* tmp = getenv("TMPDIR"); tmp != nullptr && *tmp != '\0') bases.emplace_back(tmp);
  bases.emplace_back("/tmp");
  return bases;
}

std::string MakeSessionDir(const std::vector<std::string>& bases, std::string* error) {
  std::string why;
  for (const std::string& base : bases) {
    std::string dir = base + "/heaprec.XXXXXX";
    std::string problem;
    if (mkdtemp(dir.data()) == nullptr) {
      problem = std::strerror(errno);
    } else {
      struct statvfs fs;
      problem = statvfs(dir.c_str(), &fs) != 0 ? std::strerror(errno)
                                               : RoomProblem(fs, kSessionMinFreeBytes);
      if (problem.empty()) return dir;
      rmdir(dir.c_str());
    }
    why += (why.empty() ? "" : "; ") + base + ": " + problem;
  }
  *error = "cannot make a session folder (" + why + ")";
  return "";
}

}  // namespace heaprec::recorder::launcher
