// How the process ends, for the launcher (exit_announce.h).
#include "recorder/preload/exit_announce.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "recorder/preload/recorder_state.h"

namespace heaprec::recorder::preload {
namespace {

void Announce(int32_t wait_status) {
  if (g_recorder.mode.load(std::memory_order_acquire) != kOn) return;
  const int saved = errno;
  RegionHeader& h = Header();
  if (getpid() == h.pid) {
    h.exit_wait_status.store(wait_status, std::memory_order_relaxed);
    h.exit_announced.store(1, std::memory_order_release);
  }
  errno = saved;
}

}  // namespace

void AnnounceExitCode(int status) { Announce(static_cast<int32_t>((status & 0xff) << 8)); }

void AnnounceFatalSignal(int sig) { Announce(static_cast<int32_t>(sig & 0x7f)); }

}  // namespace heaprec::recorder::preload
