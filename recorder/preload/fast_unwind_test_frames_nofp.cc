// Call chains without frame pointers for fast_unwind_test.cc
// (fast_unwind_test_frames.h).
#include "recorder/preload/fast_unwind_test_frames.h"

namespace {
volatile long g_sink;
volatile long g_seed = 3;
}  // namespace

extern "C" {

// Seven values live across the call: the compiler keeps them in callee-saved
// registers, RBP among them (it is no frame pointer here).
__attribute__((noinline)) void NoFpRecurse(int depth, void (*next)(int, UnwindProbe, void*),
                                           int next_depth, UnwindProbe probe, void* arg) {
  volatile char local[48];
  local[0] = static_cast<char>(depth);
  const long a = g_seed * depth, b = g_seed + depth, c = g_seed ^ depth, d = g_seed - depth;
  const long e = g_seed * 7 + depth, f = g_seed * 11 - depth, h = g_seed * 13 ^ depth;
  if (depth > 0) {
    NoFpRecurse(depth - 1, next, next_depth, probe, arg);
  } else if (next != nullptr) {
    next(next_depth, probe, arg);
  } else {
    probe(arg);
  }
  g_sink = a + b + c + d + e + f + h + local[0];
}

void NoFpSetSeed(long seed) { g_seed = seed; }

}  // extern "C"
