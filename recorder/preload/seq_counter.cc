// The solo/shared seq counter's slow paths (seq_counter.h).
#include "recorder/preload/seq_counter.h"

#include <linux/membarrier.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

namespace heaprec::recorder::preload {

bool RegisterMembarrier() {
  const int saved = errno;
  const long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  const bool ok = cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0 &&
                  syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
  errno = saved;
  return ok;
}

uint64_t TakeSharedSeq(RegionHeader& h) {
  // A switch in progress: the switcher is at most ~10 ms from done.
  for (uint32_t spins = 0; h.seq_mode.load(std::memory_order_acquire) != kSeqShared; ++spins) {
    if (spins < 128) {
      __builtin_ia32_pause();
    } else {
      sched_yield();
    }
  }
  return h.next_seq.fetch_add(1, std::memory_order_acq_rel);
}

void SwitchToSharedSeq(RegionHeader& h) {
  uint32_t mode = kSeqSolo;
  if (!h.seq_mode.compare_exchange_strong(mode, kSeqSwitching, std::memory_order_acq_rel)) {
    while (h.seq_mode.load(std::memory_order_acquire) != kSeqShared) sched_yield();
    return;
  }
  // Every thread passes a full barrier: the solo thread's busy store made
  // before it read the mode is visible now, and its later reads see the switch.
  const int saved = errno;
  const bool fenced = syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0;
  errno = saved;
  bool idle = false;
  for (uint32_t i = 0; fenced && i < 2000 && !idle; ++i) {  // ~10 ms at most
    idle = h.solo_busy.load(std::memory_order_acquire) == 0;
    if (!idle && i >= 1000) {
      const timespec pause = {0, 10 * 1000};
      nanosleep(&pause, nullptr);
    }
  }
  const uint64_t solo = h.solo_seq.load(std::memory_order_acquire);
  h.next_seq.store(idle ? solo : solo + kSeqSkipOnStall, std::memory_order_release);
  h.seq_mode.store(kSeqShared, std::memory_order_release);
}

}  // namespace heaprec::recorder::preload
