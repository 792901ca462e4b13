// heaprec --start PID / --stop PID (recording_control.h).
#include "recorder/launcher/recording_control.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "recorder/shared/region_layout.h"

namespace heaprec::recorder::launcher {
namespace {

constexpr char kDeleted[] = " (deleted)";

std::string Strip(std::string path) {
  const size_t n = sizeof(kDeleted) - 1;
  if (path.size() > n && path.compare(path.size() - n, n, kDeleted) == 0)
    path.resize(path.size() - n);
  return path;
}

// "<pid>.<start ns>.<n>.region" for this pid.
bool IsRegionOf(const std::string& path, pid_t pid) {
  const size_t slash = path.rfind('/');
  const std::string base = path.substr(slash == std::string::npos ? 0 : slash + 1);
  const std::string prefix = std::to_string(pid) + ".";
  return base.size() > prefix.size() + 7 && base.compare(0, prefix.size(), prefix) == 0 &&
         base.compare(base.size() - 7, 7, ".region") == 0;
}

// The path of the region the process maps (its newest image's), "" if none.
// *error: why /proc/PID/maps could not be read.
std::string MappedRegion(pid_t pid, int* error) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  if (!maps) {
    *error = errno;
    return "";
  }
  std::string line, found;
  while (std::getline(maps, line)) {
    const size_t path_at = line.find('/');
    if (path_at == std::string::npos) continue;
    const std::string path = Strip(line.substr(path_at));
    if (IsRegionOf(path, pid)) found = path;
  }
  if (maps.bad()) *error = EACCES;
  return found;
}

// HEAPREC_LAUNCHER in the process's environment, then every process named
// heaprec: the launchers that may hold its region.
std::vector<pid_t> Launchers(pid_t pid) {
  std::vector<pid_t> out;
  std::ifstream env("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  const std::string key = std::string(kLauncherPidEnv) + "=";
  for (std::string var; std::getline(env, var, '\0');) {
    if (var.compare(0, key.size(), key) == 0) out.push_back(std::atoi(var.c_str() + key.size()));
  }
  if (DIR* d = opendir("/proc")) {
    while (const dirent* ent = readdir(d)) {
      const pid_t p = std::atoi(ent->d_name);
      if (p <= 0) continue;
      std::ifstream comm("/proc/" + std::to_string(p) + "/comm");
      std::string name;
      if (std::getline(comm, name) && name == "heaprec") out.push_back(p);
    }
    closedir(d);
  }
  return out;
}

// Opens the region file through launcher's descriptors; -1 if it holds none.
int OpenThroughLauncher(pid_t launcher, const std::string& region) {
  const std::string fds = "/proc/" + std::to_string(launcher) + "/fd";
  DIR* d = opendir(fds.c_str());
  if (d == nullptr) return -1;
  int fd = -1;
  while (const dirent* ent = readdir(d)) {
    const std::string link = fds + "/" + ent->d_name;
    char target[4096];
    const ssize_t n = readlink(link.c_str(), target, sizeof(target) - 1);
    if (n <= 0) continue;
    if (Strip(std::string(target, static_cast<size_t>(n))) != region) continue;
    fd = open(link.c_str(), O_RDWR | O_CLOEXEC);
    if (fd >= 0) break;
  }
  closedir(d);
  return fd;
}

ControlOutcome Fail(pid_t pid, const std::string& why) {
  return {1, "heaprec: pid " + std::to_string(pid) + ": " + why};
}

}  // namespace

ControlOutcome SwitchRecording(pid_t pid, bool start) {
  if (kill(pid, 0) != 0) {
    if (errno == ESRCH) return Fail(pid, "no such process");
    if (errno == EPERM) return Fail(pid, "not ours (permission denied: another user's process)");
  }
  int error = 0;
  const std::string region = MappedRegion(pid, &error);
  if (region.empty()) {
    if (error == ENOENT || error == ESRCH) return Fail(pid, "no such process");
    if (error != 0) {
      return Fail(
          pid, std::string("not ours (cannot read its memory map: ") + std::strerror(error) + ")");
    }
    return Fail(pid, "not recorded by heaprec (no heaprec region in its memory)");
  }
  // A region its heaprec has not adopted yet still has its name (a process
  // just forked or exec'd); an adopted one is open in its heaprec. Between
  // the two (adopted, name gone, and heaprec just reading it) a moment later
  // settles it.
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    if (attempt > 0) {
      const timespec wait = {0, 10 * 1000 * 1000};
      nanosleep(&wait, nullptr);
    }
    fd = open(region.c_str(), O_RDWR | O_CLOEXEC);
    for (pid_t launcher : Launchers(pid)) {
      if (fd >= 0) break;
      fd = OpenThroughLauncher(launcher, region);
    }
    if (kill(pid, 0) != 0 && errno == ESRCH) break;
  }
  if (fd < 0) {
    return Fail(pid,
                "not recorded by heaprec any more (no heaprec holds its region " + region + ")");
  }
  void* base = mmap(nullptr, kModulesOffset, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (base == MAP_FAILED)
    return Fail(pid, "cannot map its region: " + std::string(strerror(errno)));
  auto* h = static_cast<RegionHeader*>(base);
  ControlOutcome out;
  if (h->magic != kRegionMagic || h->version != kRegionVersion) {
    out = Fail(pid, "recorded by another version of heaprec (its region is not of this version)");
  } else if (h->pid != pid || h->ready.load(std::memory_order_acquire) != 1) {
    out = Fail(pid, "not recorded by heaprec (its region is not ready or not its own)");
  } else if (h->launcher_gone.load(std::memory_order_acquire) != 0) {
    out = Fail(pid, "not recorded any more (its heaprec has ended)");
  } else {
    const uint32_t was =
        start ? h->recording_switch.fetch_and(~kSwitchPauseWanted, std::memory_order_acq_rel)
              : h->recording_switch.fetch_or(kSwitchPauseWanted, std::memory_order_acq_rel);
    const bool was_paused = (was & kSwitchPauseWanted) != 0;
    const std::string p = "pid " + std::to_string(pid);
    out.exit_code = 0;
    if (start) {
      out.line = was_paused ? "heaprec: " + p + ": recording allocations from its next call on"
                            : "heaprec: " + p + ": already recording";
    } else {
      out.line = !was_paused ? "heaprec: " + p +
                                   ": recording paused from its next call on (frees still "
                                   "recorded)"
                             : "heaprec: " + p + ": already paused";
    }
  }
  munmap(base, kModulesOffset);
  return out;
}

}  // namespace heaprec::recorder::launcher
