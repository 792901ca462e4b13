// The worker's own memory and CPU counters, from /proc/self and getrusage.
//
// ResetPeakRss writes "5" to /proc/self/clear_refs, which sets VmHWM (peak
// RSS) back to the current RSS, so the next PeakRssBytes covers only what
// follows. Reads use a stack buffer: nothing here allocates, so reading
// them does not disturb the allocator being measured.
// RssAnon is exact from run to run; the file-backed part of VmRSS varies by
// some 100 KiB between runs of the same binary (fault-around depends on
// where ASLR put each library), which is why the allocator's start-up memory
// is counted as its anonymous memory plus its own library's pages.
// Thread-safe (no state); for the bench worker.
#ifndef HEAPREC_REPLAY_PROC_STATS_H_
#define HEAPREC_REPLAY_PROC_STATS_H_

#include <cstdint>

namespace heaprec::replay {

bool ResetPeakRss();
uint64_t RssBytes();       // VmRSS
uint64_t StatmRssBytes();  // resident pages from /proc/self/statm: cheaper, for sampling
uint64_t PeakRssBytes();   // VmHWM
uint64_t AnonRssBytes();   // RssAnon: private memory, without file-backed pages
// The file-backed resident bytes (Rss - Anonymous, /proc/self/smaps) of the
// mappings of the file at `path` (as smaps names it: resolved); 0 if none.
uint64_t FileRssBytes(const char* path);

struct CpuUsage {
  uint64_t cpu_ns = 0;  // user + system, all threads
  uint64_t minor_faults = 0;
};
CpuUsage ProcessCpuUsage();

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_PROC_STATS_H_
