// AttachFiles (attach_files.h).
#include "recorder/launcher/attach_files.h"

#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>

#include "recorder/launcher/preflight.h"
#include "recorder/launcher/proc_files.h"

namespace heaprec::recorder::launcher {
namespace {

// Libraries every process has (the C library and the loader's family).
bool Everywhere(const std::string& name) {
  for (const char* base :
       {"libc.so", "ld-linux", "libm.so", "libdl.so", "libpthread.so", "librt.so", "libgcc_s.so"}) {
    if (name.compare(0, std::strlen(base), base) == 0) return true;
  }
  return false;
}

std::string FindLibrary(const std::string& name) {
  for (const char* dir : {"/lib/x86_64-linux-gnu/", "/usr/lib/x86_64-linux-gnu/", "/lib64/",
                          "/usr/lib64/", "/lib/", "/usr/lib/"}) {
    const std::string path = std::string(dir) + name;
    if (access(path.c_str(), R_OK) == 0) return path;
  }
  return "";
}

// Depth first: each library after the ones it needs.
bool AddWithNeeds(const std::string& path, std::set<std::string>* seen,
                  std::vector<std::string>* order, std::string* error) {
  for (const std::string& name : NeededLibraries(path)) {
    if (Everywhere(name) || seen->count(name) != 0) continue;
    seen->insert(name);
    const std::string found = FindLibrary(name);
    if (found.empty()) {
      *error = "cannot find " + name + ", which " + path + " needs";
      return false;
    }
    if (!AddWithNeeds(found, seen, order, error)) return false;
  }
  order->push_back(path);
  return true;
}

// Copies from to to through a new file renamed over it: a process that has
// the old file mapped keeps it as it was.
bool Copy(const std::string& from, const std::string& to, std::string* error) {
  const std::string part = to + ".part";
  {
    std::ifstream in(from, std::ios::binary);
    std::ofstream out(part, std::ios::binary | std::ios::trunc);
    out << in.rdbuf();
    out.close();
    if (!in || !out) {
      unlink(part.c_str());
      *error = "cannot copy " + from + " to " + to;
      return false;
    }
  }
  chmod(part.c_str(), 0755);
  if (rename(part.c_str(), to.c_str()) != 0) {
    *error = "cannot copy " + from + " to " + to + ": " + std::strerror(errno);
    unlink(part.c_str());
    return false;
  }
  return true;
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::vector<std::string> NeededLibraries(const std::string& path) {
  std::vector<std::string> names;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return names;
  elf_version(EV_CURRENT);
  if (Elf* elf = elf_begin(fd, ELF_C_READ, nullptr)) {
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(elf, scn)) != nullptr) {
      GElf_Shdr sh;
      if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != SHT_DYNAMIC) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      const size_t count = sh.sh_entsize != 0 ? sh.sh_size / sh.sh_entsize : 0;
      for (size_t i = 0; data != nullptr && i < count; ++i) {
        GElf_Dyn dyn;
        if (gelf_getdyn(data, static_cast<int>(i), &dyn) == nullptr) continue;
        if (dyn.d_tag != DT_NEEDED) continue;
        if (const char* name = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val)) names.push_back(name);
      }
    }
    elf_end(elf);
  }
  close(fd);
  return names;
}

bool PrepareAttachFiles(pid_t pid, uid_t uid, const std::string& library, AttachFiles* files,
                        std::string* error) {
  files->foreign = !SameNamespace(pid, "mnt");
  const std::string root = files->foreign ? "/proc/" + std::to_string(pid) + "/root" : "";
  const std::vector<std::string> bases =
      files->foreign ? std::vector<std::string>{root + "/dev/shm", root + "/tmp"} : SessionBases();
  files->session_here = MakeSessionDir(bases, error);
  if (files->session_here.empty()) return false;
  files->session_there = files->session_here.substr(root.size());
  // The process creates its region file there as itself.
  if (uid != geteuid() && chown(files->session_here.c_str(), uid, static_cast<gid_t>(-1)) != 0) {
    *error = "cannot give " + files->session_here + " to uid " + std::to_string(uid) + ": " +
             std::strerror(errno);
    return false;
  }
  files->load.clear();
  if (!files->foreign) {
    files->load.push_back(library);
    return true;
  }
  std::set<std::string> seen;
  std::vector<std::string> order;
  if (!AddWithNeeds(library, &seen, &order, error)) return false;
  // Beside the session folder, kept after it: a later attach finds the
  // recorder loaded under this name and loads nothing again.
  const std::string base = files->session_here.substr(0, files->session_here.rfind('/'));
  const std::string here = base + "/heaprec.lib";
  if (mkdir(here.c_str(), 0755) != 0 && errno != EEXIST) {
    *error = "cannot make " + here + ": " + std::strerror(errno);
    return false;
  }
  for (const std::string& from : order) {
    const std::string name = BaseName(from);
    if (!Copy(from, here + "/" + name, error)) return false;
    files->load.push_back(here.substr(root.size()) + "/" + name);
  }
  return true;
}

}  // namespace heaprec::recorder::launcher
