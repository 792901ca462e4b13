// Control records (recorder/shared/ring.h Control): a thread's start and
// renames, and markers, from heaprec_mark() or the marker signal.
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>

#include "recorder/preload/process_region.h"
#include "recorder/preload/recorder.h"
#include "recorder/preload/recorder_state.h"

namespace heaprec::recorder::preload {
namespace {

// The label log entry of a marker: its text (label, or "signal-N" for
// nullptr) and thread.
void FillLabel(const char* label, LabelRecord& l) {
  size_t n = 0;
  if (label == nullptr) {
    const uint32_t k = g_recorder.signal_markers.fetch_add(1, std::memory_order_relaxed) + 1;
    __builtin_memcpy(l.text, "signal-", 7);
    n = 7 + static_cast<size_t>(FormatDecimal(k, l.text + 7));
  } else {
    while (label[n] != '\0' && n < kLabelBytes - 1) {
      l.text[n] = label[n];
      ++n;
    }
  }
  l.text[n] = '\0';
  l.thread_tid = static_cast<uint32_t>(gettid());
  l.ready.store(1, std::memory_order_release);
}

void OnMarkSignal(int) {
  const int saved = errno;
  ThreadState& ts = t_thread_state;
  if (ts.guard != 0) {
    ts.pending |= kPendingMarker;  // emitted by Leave()
  } else {
    Marker(nullptr);
  }
  errno = saved;
}

}  // namespace

void WriteThreadStart(ThreadState& ts, int32_t tid) {
  RawRecord r = {};
  r.api = kThreadStart;
  r.address = static_cast<uint64_t>(tid);
  char name[16] = {};
  prctl(PR_GET_NAME, name, 0, 0, 0);
  PackThreadName(name, &r);
  WriteControl(ts, r);
}

void ThreadRenamed(int32_t tid, const char* name) {
  ThreadState& ts = t_thread_state;
  if (!Enter(ts)) return;
  RawRecord r = {};
  r.api = kThreadName;
  r.address = static_cast<uint64_t>(tid);
  PackThreadName(name, &r);
  WriteControl(ts, r);
  Leave(ts);
}

uint64_t LogLabel(const char* label) {
  const uint32_t index = Header().label_count.fetch_add(1, std::memory_order_relaxed);
  if (index >= kLabelRecords) {
    Count().label_log_full.fetch_add(1, std::memory_order_relaxed);
    return UINT64_MAX;
  }
  FillLabel(label, g_recorder.region.labels()[index]);
  return index;
}

void WriteMarkerLocked(ThreadState& ts, const char* label) {
  RawRecord r = {};
  r.api = kMarker;
  r.address = LogLabel(label);
  WriteControl(ts, r);
}

void Marker(const char* label) {
  ThreadState& ts = t_thread_state;
  if (!Enter(ts)) return;
  WriteMarkerLocked(ts, label);
  Leave(ts);
}

void InstallMarkSignal() {
  const int sig = g_recorder.config.mark_signal;
  if (sig <= 0 || sig >= NSIG) return;
  struct sigaction old;
  if (sigaction(sig, nullptr, &old) != 0) return;
  if (old.sa_handler != SIG_DFL) return;  // the program's own handler wins
  struct sigaction sa = {};
  sa.sa_handler = OnMarkSignal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, nullptr);
}

}  // namespace heaprec::recorder::preload
