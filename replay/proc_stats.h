// The worker's own memory and CPU counters, from /proc/self and getrusage.
//
// ResetPeakRss writes "5" to /proc/self/clear_refs, which sets VmHWM (peak
// RSS) back to the current RSS, so the next PeakRssBytes covers only what
// follows. Reads use a stack buffer: nothing here allocates, so reading
// them does not disturb the allocator being measured.
// Thread-safe (no state); for the bench worker.
#ifndef HEAPREC_REPLAY_PROC_STATS_H_
#define HEAPREC_REPLAY_PROC_STATS_H_

#include <cstdint>

namespace heaprec::replay {

bool ResetPeakRss();
uint64_t RssBytes();       // VmRSS
uint64_t StatmRssBytes();  // resident pages from /proc/self/statm: cheaper, for sampling
uint64_t PeakRssBytes();   // VmHWM

struct CpuUsage {
  uint64_t cpu_ns = 0;  // user + system, all threads
  uint64_t minor_faults = 0;
};
CpuUsage ProcessCpuUsage();

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_PROC_STATS_H_
