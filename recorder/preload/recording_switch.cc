// Recording switched off and on (recording_switch.h).
#include "recorder/preload/recording_switch.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include "format/switch_markers.h"
#include "recorder/preload/process_region.h"
#include "recorder/preload/recorder_state.h"

namespace heaprec::recorder::preload {
namespace {

constinit std::atomic<uint32_t> g_no_region_word{kSwitchRecording};

// "<session>/<pid>.<start time>.switch": this process's state, one byte ('1'
// paused, '0' recording), written at each switch so that the image it execs
// (same pid and start time: /proc/self/stat's starttime) starts the same.
constinit char g_state_file[4096] = {};

void OnSwitchSignal(int) {
  const int saved = errno;
  g_switch_word->fetch_xor(kSwitchPauseWanted, std::memory_order_acq_rel);
  errno = saved;
}

// The process's start time in clock ticks (/proc/self/stat field 22, the
// same across exec), or 0.
uint64_t ProcessStartTime() {
  char buf[1024];
  const int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  const char* p = __builtin_strrchr(buf, ')');  // the name may hold spaces
  if (p == nullptr) return 0;
  // Fields after the name: 3 (state) ... 22 (starttime).
  for (int field = 2; field < 22 && *p != '\0'; ++p) field += *p == ' ';
  uint64_t v = 0;
  for (; *p >= '0' && *p <= '9'; ++p) v = v * 10 + static_cast<uint64_t>(*p - '0');
  return v;
}

void NameStateFile() {
  const char* dir = g_recorder.config.session;
  g_state_file[0] = '\0';
  if (dir == nullptr) return;
  size_t n = __builtin_strlen(dir);
  if (n + 64 >= sizeof(g_state_file)) return;
  __builtin_memcpy(g_state_file, dir, n);
  g_state_file[n++] = '/';
  n += static_cast<size_t>(FormatDecimal(static_cast<uint64_t>(getpid()), g_state_file + n));
  g_state_file[n++] = '.';
  n += static_cast<size_t>(FormatDecimal(ProcessStartTime(), g_state_file + n));
  __builtin_memcpy(g_state_file + n, ".switch", 8);
}

void WriteStateFile(bool paused) {
  if (g_state_file[0] == '\0') return;
  const int saved = errno;
  const int fd = open(g_state_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd >= 0) {
    const char c = paused ? '1' : '0';
    (void)!write(fd, &c, 1);
    close(fd);
  }
  errno = saved;
}

// 1 paused, 0 recording, -1 no state file (this image was not exec'd by a
// switched one).
int ReadStateFile() {
  if (g_state_file[0] == '\0') return -1;
  const int fd = open(g_state_file, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char c = 0;
  const ssize_t n = read(fd, &c, 1);
  close(fd);
  return n == 1 ? (c == '1') : -1;
}

}  // namespace

constinit std::atomic<uint32_t>* g_switch_word = &g_no_region_word;

bool ApplySwitchNow() {
  ThreadState& ts = Tls();
  if (ts.guard == 0 && Enter(ts)) Leave(ts);  // Enter applies it
  return g_switch_word->load(std::memory_order_acquire) == kSwitchRecording;
}

void ApplySwitchLocked(ThreadState& ts) {
  std::atomic<uint32_t>& word = Header().recording_switch;
  uint32_t w = word.load(std::memory_order_acquire);
  while (SwitchAsked(w)) {
    const uint32_t next = w == kSwitchPauseWanted ? kSwitchPaused : kSwitchRecording;
    if (!word.compare_exchange_weak(w, next, std::memory_order_acq_rel)) continue;
    const bool paused = next == kSwitchPaused;
    WriteMarkerLocked(ts, paused ? format::kRecordingStopLabel : format::kRecordingStartLabel);
    WriteStateFile(paused);
    return;
  }
}

bool PausedAtStart() {
  NameStateFile();
  const int inherited = ReadStateFile();
  return inherited >= 0 ? inherited == 1 : g_recorder.config.start_paused;
}

bool PausedAtStartAfterFork(const RegionHeader& parent) {
  NameStateFile();
  const bool paused =
      (parent.recording_switch.load(std::memory_order_acquire) & kSwitchPausedNow) != 0;
  // For the image it may exec, when the environment says otherwise.
  if (paused != g_recorder.config.start_paused) WriteStateFile(paused);
  return paused;
}

void UseSwitch(RegionHeader& h) { g_switch_word = &h.recording_switch; }

void ForgetSwitch() { g_switch_word = &g_no_region_word; }

void InstallSwitchSignal() {
  const int sig = g_recorder.config.switch_signal;
  if (sig <= 0 || sig >= NSIG) return;
  struct sigaction old;
  if (sigaction(sig, nullptr, &old) != 0) return;
  if (old.sa_handler != SIG_DFL) return;  // the program's own handler wins
  struct sigaction sa = {};
  sa.sa_handler = OnSwitchSignal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, nullptr);
}

}  // namespace heaprec::recorder::preload
