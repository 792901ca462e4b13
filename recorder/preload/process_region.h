// ProcessRegion: creates this process image's region file in the session
// folder, maps it shared, and fills its header (pid, times, command line,
// executable, host). One per process image: at start, in a fork child, and
// again after exec (a new image loads the library afresh).
//
// Uses only system calls and static buffers: never allocates. Not thread-safe
// (called once per image, under the recorder's init or fork handler).
#ifndef HEAPREC_RECORDER_PRELOAD_PROCESS_REGION_H_
#define HEAPREC_RECORDER_PRELOAD_PROCESS_REGION_H_

#include <cstdint>

#include "recorder/shared/region_layout.h"

namespace heaprec::recorder::preload {

struct RegionSettings {
  const char* session_dir;
  int32_t launcher_pid;
  uint32_t max_depth;
  uint64_t parent_fork_seq;
  // The first thread may count seqs alone (RegionHeader::seq_mode): only
  // where the switch to shared counting can fence it (membarrier).
  bool solo_seq;
  // A fork child: the forking image's start_monotonic_ns; 0 otherwise.
  uint64_t parent_start_ns = 0;
  // heaprec --sample-rate (RegionHeader::sample_rate); 0 = exact.
  uint64_t sample_rate = 0;
  // Allocations not recorded at first (RegionHeader::started_paused,
  // recording_switch; recording_switch.h).
  bool start_paused = false;
  // heaprec -p: the recording begins in a running process
  // (RegionHeader::attached).
  bool attached = false;
  // heaprec --precise-times (RegionHeader::precise_times).
  bool precise_times = false;
};

// Returns a view with base == nullptr if the region could not be made.
RegionView CreateRegion(const RegionSettings& settings);

// Writes the decimal digits of v to out (no terminator); returns the count.
int FormatDecimal(uint64_t v, char* out);

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_PROCESS_REGION_H_
