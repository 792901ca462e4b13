// Config from the environment (config.h).
#include "recorder/preload/config.h"

#include <cstdlib>

#include "recorder/shared/region_layout.h"

namespace heaprec::recorder::preload {

uint32_t ParseUint(const char* s, uint32_t fallback) {
  if (s == nullptr || *s == '\0') return fallback;
  uint32_t v = 0;
  for (; *s >= '0' && *s <= '9'; ++s) v = v * 10 + static_cast<uint32_t>(*s - '0');
  return *s == '\0' ? v : fallback;
}

uint64_t ParseUint64(const char* s, uint64_t fallback) {
  if (s == nullptr || *s == '\0') return fallback;
  uint64_t v = 0;
  for (; *s >= '0' && *s <= '9'; ++s) {
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *s - '0', &v)) {
      return fallback;
    }
  }
  return *s == '\0' ? v : fallback;
}

Config ReadConfig() {
  return ReadConfigWith([](const char* name) -> const char* { return getenv(name); });
}

Config ReadConfigWith(const char* (*get)(const char*)) {
  Config c;
  c.session = get(kSessionEnv);
  if (c.session != nullptr && c.session[0] == '\0') c.session = nullptr;
  c.launcher_pid = static_cast<int32_t>(ParseUint(get(kLauncherPidEnv), 0));
  c.max_depth = ParseUint(get(kDepthEnv), kMaxDepth);
  if (c.max_depth == 0) c.max_depth = 1;
  if (c.max_depth > kMaxDepth) c.max_depth = kMaxDepth;
  c.follow = ParseUint(get(kFollowEnv), 1) != 0;
  c.follow_only = get(kFollowOnlyEnv);
  c.follow_skip = get(kFollowSkipEnv);
  c.free_stacks = ParseUint(get(kFreeStacksEnv), 0) != 0;
  c.mark_signal = static_cast<int>(ParseUint(get(kMarkSignalEnv), SIGUSR2));
  c.leak_scan = ParseUint(get(kLeakScanEnv), 1) != 0;
  c.scan_signal = static_cast<int>(ParseUint(get(kScanSignalEnv), 0));
  c.sample_rate = ParseUint64(get(kSampleRateEnv), 0);
  c.sample_seed = ParseUint64(get(kSampleSeedEnv), 0);
  c.start_paused = ParseUint(get(kPausedEnv), 0) != 0;
  c.switch_signal = static_cast<int>(ParseUint(get(kSwitchSignalEnv), 0));
  c.precise_times = ParseUint(get(kPreciseTimesEnv), 0) != 0;
  return c;
}

}  // namespace heaprec::recorder::preload
