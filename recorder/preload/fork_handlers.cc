// fork: the parent records nothing during the fork (no lock of ours or
// libunwind's is held across it), and the child switches to a region of its
// own before it records anything (or stops recording without --follow).
#include <sys/mman.h>

#include <atomic>

#include "recorder/preload/fast_unwind.h"
#include "recorder/preload/module_scan.h"
#include "recorder/preload/process_region.h"
#include "recorder/preload/recorder_state.h"
#include "recorder/preload/recording_switch.h"
#include "recorder/preload/sampler.h"
#include "recorder/preload/seq_counter.h"
#include "recorder/preload/thread_block.h"

namespace heaprec::recorder::preload {
namespace {

void ForkPrepare() {
  t_thread_state.in_fork = 1;  // this thread records (and unwinds) nothing until the fork is done
  BlockFastUnwindForFork();    // no libunwind lock is held across the fork
  if (g_recorder.mode.load(std::memory_order_acquire) == kOn) {
    g_recorder.fork_seq = CurrentSeq(Header());
  }
  LockModuleScan();
}

void ForkParent() {
  UnlockModuleScan();
  UnblockFastUnwindAfterFork();
  t_thread_state.in_fork = 0;
}

void ForkChild() {
  ThreadState& ts = t_thread_state;
  ts.ring = {};
  ResetThreadBlocksAfterFork();  // this thread keeps its block; the others' are free
  ResetFastUnwindAfterFork();
  t_sampler.rng = 0;  // a sample of its own, not the parent's draws again
  if (g_recorder.mode.load(std::memory_order_acquire) == kOn) {
    const RegionView parent = g_recorder.region;
    const Config& c = g_recorder.config;
    RegionView child;
    if (c.follow) {
      // The child starts as its parent is (paused or recording).
      child = CreateRegion({c.session, c.launcher_pid, c.max_depth, g_recorder.fork_seq,
                            RegisterMembarrier(), parent.header()->start_monotonic_ns,
                            c.sample_rate, PausedAtStartAfterFork(*parent.header()),
                            /*attached=*/false, c.precise_times});
    }
    g_recorder.mode.store(child.base != nullptr ? kOn : kOff, std::memory_order_release);
    if (child.base != nullptr) {
      UseSwitch(*child.header());
      g_recorder.region = child;
      g_recorder.generation.fetch_add(1, std::memory_order_acq_rel);
      AnnounceOwnMemory();
      ForgetModules();
    } else {
      ForgetSwitch();
    }
    munmap(parent.base, kRegionBytes);  // the parent's rings are not ours
  }
  UnlockModuleScan();
  if (g_recorder.mode.load(std::memory_order_acquire) == kOn) {
    ts.guard++;
    ScanModules(g_recorder.region);
    ts.guard--;
  }
  ts.in_fork = 0;
}

}  // namespace

void InstallForkHandlers() { pthread_atfork(ForkPrepare, ForkParent, ForkChild); }

}  // namespace heaprec::recorder::preload
