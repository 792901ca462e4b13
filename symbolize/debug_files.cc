// Where a module's file and debug information are (debug_files.h).
#include "symbolize/debug_files.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

namespace heaprec::symbolize {
namespace {

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Whether path is an ELF file of this build-id (any ELF file when build_id
// is empty).
bool Matches(const std::string& path, const std::string& build_id) {
  const std::optional<std::string> id = ReadBuildId(path);
  return id && (build_id.empty() || *id == build_id);
}

bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

}  // namespace

std::optional<std::string> ReadBuildId(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  elf_version(EV_CURRENT);
  std::optional<std::string> build_id;
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (elf != nullptr && elf_kind(elf) == ELF_K_ELF) {
    const void* bits = nullptr;
    const ssize_t n = dwelf_elf_gnu_build_id(elf, &bits);
    build_id = n > 0 ? std::string(static_cast<const char*>(bits), n) : std::string();
  }
  elf_end(elf);
  close(fd);
  return build_id;
}

std::string BuildIdPath(const std::string& build_id) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string path;
  for (size_t i = 0; i < build_id.size(); ++i) {
    const auto byte = static_cast<unsigned char>(build_id[i]);
    path += kHex[byte >> 4];
    path += kHex[byte & 0xf];
    if (i == 0) path += '/';
  }
  return path;
}

std::string FindModuleFile(const format::Module& module, const std::vector<std::string>& dirs) {
  if (Matches(module.path, module.build_id)) return module.path;
  // A module known by name only ([vdso], a deleted file's name) is never
  // guessed from a file of the same name without a build-id to check.
  const bool by_id = !module.build_id.empty();
  const bool by_name = by_id && !module.path.empty() && module.path[0] == '/';
  for (const std::string& dir : dirs) {
    if (by_id && Matches(dir + "/.build-id/" + BuildIdPath(module.build_id), module.build_id)) {
      return dir + "/.build-id/" + BuildIdPath(module.build_id);
    }
    if (by_name && Matches(dir + module.path, module.build_id)) return dir + module.path;
    const std::string named = dir + "/" + BaseName(module.path);
    if (by_name && Matches(named, module.build_id)) return named;
  }
  for (const std::string& dir : dirs) {
    const std::string debug = dir + "/.build-id/" + BuildIdPath(module.build_id) + ".debug";
    if (by_id && Matches(debug, module.build_id)) return debug;
  }
  return "";
}

std::string FindDebugFileByName(const std::string& build_id, const std::string& module_path,
                                const std::string& main_file, const std::string& debuglink,
                                const std::vector<std::string>& dirs) {
  if (build_id.empty()) return "";  // nothing to tell the right file from another
  const std::string name = BaseName(module_path);
  for (const std::string& dir : dirs) {
    std::vector<std::string> candidates = {dir + "/.build-id/" + BuildIdPath(build_id)};
    if (!module_path.empty() && module_path[0] == '/') candidates.push_back(dir + module_path);
    candidates.push_back(dir + "/" + name);
    candidates.push_back(dir + "/" + name + ".debug");
    if (!debuglink.empty()) candidates.push_back(dir + "/" + BaseName(debuglink));
    for (const std::string& candidate : candidates) {
      if (Matches(candidate, build_id) && !SameFile(candidate, main_file)) return candidate;
    }
  }
  return "";
}

}  // namespace heaprec::symbolize
