// Call chains for fast_unwind_test.cc, in files compiled with and without
// frame pointers (recorder/BUILD.bazel). Each runs probe(arg) at its bottom.
// None is inlined or tail-calls, so every one keeps its frame.
#ifndef HEAPREC_RECORDER_PRELOAD_FAST_UNWIND_TEST_FRAMES_H_
#define HEAPREC_RECORDER_PRELOAD_FAST_UNWIND_TEST_FRAMES_H_

extern "C" {

using UnwindProbe = void (*)(void* arg);

// fast_unwind_test_frames_fp.cc (-fno-omit-frame-pointer).
// depth frames of recursion, then probe.
void FpRecurse(int depth, UnwindProbe probe, void* arg);
// f -> g -> h -> probe when which is 0, f -> k -> h -> probe otherwise; g and k
// have the same frame size, so h runs at the same stack depth in both.
void FpChainF(int which, UnwindProbe probe, void* arg);
// A variable-length array of `bytes` (RBP-based CFA), then probe.
void FpAlloca(int bytes, UnwindProbe probe, void* arg);
// Two frames, then probe; called by one test only (its IPs are new there).
void FpOnce(UnwindProbe probe, void* arg);

// fast_unwind_test_frames_nofp.cc (-fomit-frame-pointer): depth frames that
// keep many values live across their call (so RBP holds data), then probe,
// or, when next is set, next(next_depth, probe, arg).
void NoFpRecurse(int depth, void (*next)(int, UnwindProbe, void*), int next_depth,
                 UnwindProbe probe, void* arg);
// The seed NoFpRecurse's live values (RBP's among them) are made of.
void NoFpSetSeed(long seed);

// libfast_unwind_test_plugin.so (dlopen'ed): depth frames, then probe.
void PluginRecurse(int depth, UnwindProbe probe, void* arg);
}

#endif  // HEAPREC_RECORDER_PRELOAD_FAST_UNWIND_TEST_FRAMES_H_
