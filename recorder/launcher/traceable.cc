// Static and secure-mode programs found before they run (traceable.h).
#include "recorder/launcher/traceable.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cstdlib>

namespace heaprec::recorder::launcher {
namespace {

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

// 1 if the ELF file has a PT_INTERP segment (a dynamic loader runs it), 0 if
// it has none (statically linked, static-pie included), -1 if not ELF.
int HasInterpreter(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  elf_version(EV_CURRENT);
  int result = -1;
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  size_t count = 0;
  if (elf != nullptr && elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &count) == 0) {
    result = 0;
    for (size_t i = 0; i < count && result == 0; ++i) {
      GElf_Phdr phdr;
      if (gelf_getphdr(elf, static_cast<int>(i), &phdr) != nullptr && phdr.p_type == PT_INTERP) {
        result = 1;
      }
    }
    // An object with no program headers at all (a .o, a core) is not a
    // program; let exec say so.
    if (count == 0) result = -1;
  }
  elf_end(elf);
  close(fd);
  return result;
}

}  // namespace

std::string ResolveCommand(const std::string& command) {
  if (command.empty()) return "";
  if (command.find('/') != std::string::npos) return command;
  const char* env = getenv("PATH");
  const std::string path = env != nullptr ? env : "/bin:/usr/bin";
  size_t start = 0;
  for (;;) {
    const size_t end = path.find(':', start);
    std::string dir =
        path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (dir.empty()) dir = ".";  // an empty entry is the current folder
    const std::string candidate = dir + "/" + command;
    if (IsExecutableFile(candidate)) return candidate;
    if (end == std::string::npos) return "";
    start = end + 1;
  }
}

std::string WhyUntraceable(const std::string& path, uid_t uid, gid_t gid) {
  struct stat st;
  if (path.empty() || stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  const int interpreter = HasInterpreter(path);
  if (interpreter < 0) return "";
  if (interpreter == 0)
    return "it is statically linked, so no dynamic loader runs it to preload libheaprec.so";
  // The exec gives the program ids other than its real ones (or, for a user
  // other than root, capabilities it did not have): the kernel sets AT_SECURE.
  if ((st.st_mode & S_ISUID) != 0 && st.st_uid != uid) {
    return "it is setuid to uid " + std::to_string(st.st_uid) +
           ", so the loader runs it in secure mode and ignores LD_PRELOAD";
  }
  if ((st.st_mode & S_ISGID) != 0 && st.st_gid != gid) {
    return "it is setgid to gid " + std::to_string(st.st_gid) +
           ", so the loader runs it in secure mode and ignores LD_PRELOAD";
  }
  if (uid != 0 && getxattr(path.c_str(), "security.capability", nullptr, 0) > 0) {
    return "it has file capabilities, so the loader runs it in secure mode and ignores LD_PRELOAD";
  }
  return "";
}

}  // namespace heaprec::recorder::launcher
