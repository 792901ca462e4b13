// A shared object fast_unwind_test.cc loads and unloads: frames in code whose
// unwind rules must not outlive dlclose (fast_unwind_test_frames.h).
#include "recorder/preload/fast_unwind_test_frames.h"

namespace {
volatile long g_sink;
}  // namespace

extern "C" __attribute__((visibility("default"), noinline)) void PluginRecurse(int depth,
                                                                               UnwindProbe probe,
                                                                               void* arg) {
  volatile char local[64];
  local[0] = static_cast<char>(depth);
  if (depth > 0) {
    PluginRecurse(depth - 1, probe, arg);
  } else {
    probe(arg);
  }
  g_sink = local[0];
}
