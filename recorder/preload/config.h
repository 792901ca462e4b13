// Config: what the launcher asks of the recorder in this process, read once
// from the environment it sets (recorder/shared/region_layout.h names the
// variables) when the library initializes.
//
// getenv only: never allocates, no locks. Called by Initialize() (recorder.cc)
// before any thread but the first can record.
#ifndef HEAPREC_RECORDER_PRELOAD_CONFIG_H_
#define HEAPREC_RECORDER_PRELOAD_CONFIG_H_

#include <signal.h>

#include <cstdint>

namespace heaprec::recorder::preload {

struct Config {
  const char* session = nullptr;  // the session folder; nullptr: not run by heaprec
  int32_t launcher_pid = 0;       // to check that the launcher lives
  uint32_t max_depth = 256;       // frames per stack, 1..kMaxDepth (--depth)
  bool follow = true;             // record fork children and exec'd images
  // heaprec --follow=, --no-follow=: which programs record (follow.h);
  // nullptr = no patterns.
  const char* follow_only = nullptr;
  const char* follow_skip = nullptr;
  bool free_stacks = false;    // capture the stack of every free too
  int mark_signal = SIGUSR2;   // the signal that records a marker; 0 = none
  bool leak_scan = true;       // a leak scan at the end of the process
  int scan_signal = 0;         // the signal that asks for a leak scan; 0 = none
  uint64_t sample_rate = 0;    // --sample-rate: mean bytes between samples; 0 = exact
  uint64_t sample_seed = 0;    // the sampler's seed; 0 = from time and thread ids
  bool start_paused = false;   // HEAPREC_PAUSED=1: allocations not recorded at first
  int switch_signal = 0;       // the signal that toggles recording; 0 = none
  bool precise_times = false;  // --precise-times: program time per record (record_clock.h)
};

Config ReadConfig();
// The same settings from another source: get(name) as getenv would answer
// (heaprec -p hands them over as text: attach.cc).
Config ReadConfigWith(const char* (*get)(const char*));

// The decimal number s, or fallback if s is missing or not all digits.
uint32_t ParseUint(const char* s, uint32_t fallback);
uint64_t ParseUint64(const char* s, uint64_t fallback);

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_CONFIG_H_
