// ProcessRegion: the region file "<pid>.<start ns>.<n>.region" in the session folder.
#include "recorder/preload/process_region.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "recorder/preload/populate.h"

namespace heaprec::recorder::preload {
namespace {

uint64_t Now(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// Opens "<dir>/<pid>.<start ns>.<n>.region", a name no other image ever
// uses: an exec'd image keeps its pid, and the launcher unlinks names it has
// taken up, so the pid alone (or pid and a counter) could repeat.
int CreateFile(const char* dir, int32_t pid, uint64_t start_ns, uint32_t* serial) {
  char path[4096];
  const size_t dir_len = strlen(dir);
  if (dir_len + 80 > sizeof(path)) return -1;
  for (uint32_t s = 0; s < 1000; ++s) {
    char* p = path;
    memcpy(p, dir, dir_len);
    p += dir_len;
    *p++ = '/';
    p += FormatDecimal(static_cast<uint64_t>(pid), p);
    *p++ = '.';
    p += FormatDecimal(start_ns, p);
    *p++ = '.';
    p += FormatDecimal(s, p);
    memcpy(p, ".region", 8);
    const int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
      *serial = s;
      return fd;
    }
    if (errno != EEXIST) return -1;
  }
  return -1;
}

void ReadCmdline(RegionHeader* h) {
  h->cmdline_bytes = 0;
  const int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  while (h->cmdline_bytes < kCmdlineBytes) {
    const ssize_t n = read(fd, h->cmdline + h->cmdline_bytes, kCmdlineBytes - h->cmdline_bytes);
    if (n <= 0) break;
    h->cmdline_bytes += static_cast<uint32_t>(n);
  }
  close(fd);
}

}  // namespace

int FormatDecimal(uint64_t v, char* out) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  for (int i = 0; i < n; ++i) out[i] = tmp[n - 1 - i];
  return n;
}

RegionView CreateRegion(const RegionSettings& settings) {
  RegionView view;
  const int32_t pid = getpid();
  uint32_t serial = 0;
  const uint64_t start_monotonic = Now(CLOCK_MONOTONIC);
  const int fd = CreateFile(settings.session_dir, pid, start_monotonic, &serial);
  if (fd < 0) return view;
  if (ftruncate(fd, static_cast<off_t>(kRegionBytes)) != 0) {
    close(fd);
    return view;
  }
  void* base = mmap(nullptr, kRegionBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);  // the mapping stays; the program may close every descriptor
  if (base == MAP_FAILED) return view;
  view.base = static_cast<uint8_t*>(base);

  RegionHeader* h = view.header();
  h->magic = kRegionMagic;
  h->version = kRegionVersion;
  h->pid = pid;
  h->ppid = getppid();
  h->launcher_pid = settings.launcher_pid;
  h->page_size = static_cast<uint32_t>(sysconf(_SC_PAGESIZE));
  h->max_depth = settings.max_depth;
  h->exec_serial = serial;
  h->sample_rate = settings.sample_rate;
  h->start_realtime_ns = Now(CLOCK_REALTIME);
  h->start_monotonic_ns = start_monotonic;
  h->parent_fork_seq = settings.parent_fork_seq;
  h->parent_start_ns = settings.parent_start_ns;
  h->started_paused = settings.start_paused ? 1 : 0;
  h->attached = settings.attached ? 1 : 0;
  h->precise_times = settings.precise_times ? 1 : 0;
  h->recording_switch.store(settings.start_paused ? kSwitchPaused : kSwitchRecording,
                            std::memory_order_relaxed);
  h->next_seq.store(1, std::memory_order_relaxed);
  h->solo_seq.store(1, std::memory_order_relaxed);
  h->seq_mode.store(settings.solo_seq ? kSeqSolo : kSeqShared, std::memory_order_relaxed);
  h->stack_arena_used.store(1, std::memory_order_relaxed);  // id 0 = none
  // Written from the start (the arena, then the next 256 KiB as entries
  // reach it: stack_interner.cc) and at random (the index's first level).
  PopulateForWrite(view.stack_arena(), 2 * 32768 * sizeof(uint64_t));
  PopulateForWrite(view.stack_index(), (size_t{1} << kStackIndexFirstBits) * sizeof(uint32_t));
  const ssize_t n = readlink("/proc/self/exe", h->exe, kExeBytes - 1);
  h->exe[n > 0 ? n : 0] = '\0';
  utsname u;
  if (uname(&u) == 0) {
    strncpy(h->hostname, u.nodename, sizeof(h->hostname) - 1);
  }
  ReadCmdline(h);
  h->ready.store(1, std::memory_order_release);
  return view;
}

}  // namespace heaprec::recorder::preload
