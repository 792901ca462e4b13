// Frame-pointer call chains for fast_unwind_test.cc (fast_unwind_test_frames.h).
#include "recorder/preload/fast_unwind_test_frames.h"

namespace {
volatile int g_sink;
}  // namespace

extern "C" {

__attribute__((noinline)) void FpRecurse(int depth, UnwindProbe probe, void* arg) {
  if (depth > 0) {
    FpRecurse(depth - 1, probe, arg);
  } else {
    probe(arg);
  }
  g_sink = depth;  // not a tail call
}

__attribute__((noinline)) void FpChainH(UnwindProbe probe, void* arg) {
  probe(arg);
  g_sink = 3;
}

__attribute__((noinline)) void FpChainG(UnwindProbe probe, void* arg) {
  FpChainH(probe, arg);
  g_sink = 1;
}

__attribute__((noinline)) void FpChainK(UnwindProbe probe, void* arg) {
  FpChainH(probe, arg);
  g_sink = 2;
}

__attribute__((noinline)) void FpChainF(int which, UnwindProbe probe, void* arg) {
  if (which == 0) {
    FpChainG(probe, arg);
  } else {
    FpChainK(probe, arg);
  }
  g_sink = 4;
}

__attribute__((noinline)) void FpOnceInner(UnwindProbe probe, void* arg) {
  probe(arg);
  g_sink = 5;
}

__attribute__((noinline)) void FpOnce(UnwindProbe probe, void* arg) {
  FpOnceInner(probe, arg);
  g_sink = 6;
}

__attribute__((noinline)) void FpAlloca(int bytes, UnwindProbe probe, void* arg) {
  volatile char buffer[bytes];  // NOLINT: a VLA on purpose (RBP-based CFA)
  buffer[0] = 1;
  buffer[bytes - 1] = 2;
  probe(arg);
  g_sink = buffer[0] + buffer[bytes - 1];
}

}  // extern "C"
