// Differential test: FastBacktrace against libunwind's unw_backtrace, called
// from the same call site (one call instruction, through a pointer), over
// stacks built to break each part of it: recursion 0..100 deep, call chains
// that differ only in a middle frame (prefix reuse must reject the stale
// one), RBP-based frames (VLAs), frames without frame pointers, signal
// handlers (also on an alternate stack), many threads, the smallest thread
// stacks (the slow path runs on the thread block's spare stack), and code
// that is dlopen'ed and dlclose'd. A test also shows that it fails when the prefix
// check is switched off.
#include "recorder/preload/fast_unwind.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "recorder/preload/fast_unwind_test_frames.h"
#include "recorder/preload/thread_block.h"
#include "recorder/preload/unwind_rules.h"

namespace heaprec::recorder::preload {
namespace {

constexpr int kMax = 128;

using BacktraceFn = int (*)(void**, int);

// unw_backtrace's frames start at its caller: this function, unless the
// compiler turned the call into a tail call (it does at -O2, not under the
// sanitizers). Start at our caller (Via), as FastBacktrace does.
__attribute__((noinline)) int LibunwindBacktrace(void** ips, int max) {
  void* all[kMax + 1];
  const int n = unw_backtrace(all, max + 1);
  void* const caller = __builtin_return_address(0);
  int skip = 0;
  while (skip < n && all[skip] != caller) ++skip;
  if (skip == n) skip = 0;
  const int m = n - skip < max ? n - skip : max;
  memcpy(ips, all + skip, sizeof(void*) * static_cast<size_t>(m));
  return m;
}

// Both captures of one comparison, and how many frames were asked for.
struct Pair {
  bool fast_only = false;  // FastBacktrace alone (a stack too small for unw_backtrace)
  int max = 72;
  int n[2] = {0, 0};
  void* ips[2][kMax];
};

// The single call site both backtraces run from: their frames, ips[0]
// included, must be the same.
__attribute__((noinline)) int Via(BacktraceFn fn, void** ips, int max) {
  const int n = fn(ips, max);
  asm volatile("" ::: "memory");
  return n;
}

volatile int g_two = 2;  // a trip count the compiler cannot see: one call site

__attribute__((noinline)) void CaptureBoth(void* arg) {
  Pair* p = static_cast<Pair*>(arg);
  const int count = p->fast_only ? 1 : g_two;
#pragma GCC unroll 1
  for (int v = 0; v < count; ++v) {
    p->n[v] = Via(v == 0 ? &FastBacktrace : &LibunwindBacktrace, p->ips[v], p->max);
  }
  asm volatile("" ::: "memory");
}

// Empty when both agree, else a description of the first difference.
std::string Diff(const Pair& p) {
  if (p.n[0] == p.n[1] && memcmp(p.ips[0], p.ips[1], sizeof(void*) * p.n[0]) == 0) return "";
  std::string out =
      "fast " + std::to_string(p.n[0]) + " frames, libunwind " + std::to_string(p.n[1]) + ":";
  const int n = p.n[0] > p.n[1] ? p.n[0] : p.n[1];
  for (int i = 0; i < n; ++i) {
    char line[96];
    snprintf(line, sizeof(line), "\n  %3d %16p %16p%s", i, i < p.n[0] ? p.ips[0][i] : nullptr,
             i < p.n[1] ? p.ips[1][i] : nullptr,
             i < p.n[0] && i < p.n[1] && p.ips[0][i] == p.ips[1][i] ? "" : "  <--");
    out += line;
  }
  return out;
}

uint64_t FastCaptures() {
  const FastUnwindStats s = FastUnwindThreadStats();
  return s.fast;
}

TEST(FastUnwindTest, RecursionDepths0To100) {
  const uint64_t fast_before = FastCaptures();
  for (int rep = 0; rep < 3; ++rep) {
    for (int depth = 0; depth <= 100; ++depth) {
      Pair p;
      FpRecurse(depth, CaptureBoth, &p);
      ASSERT_EQ(Diff(p), "") << "depth " << depth << " rep " << rep;
    }
    for (int depth = 100; depth >= 0; depth -= 7) {
      Pair p;
      FpRecurse(depth, CaptureBoth, &p);
      ASSERT_EQ(Diff(p), "") << "depth " << depth << " down, rep " << rep;
    }
  }
  // Not vacuous: most captures took the rule walk.
  EXPECT_GT(FastCaptures() - fast_before, 200u);
}

// The recorder's way: FastBacktraceFrom from two frames down (Inner, then
// Middle, which has a frame pointer), started at Middle's frame, against
// libunwind's frames from Middle's caller on.
__attribute__((noinline)) int Inner(Pair* p, uintptr_t start_fp) {
  const int n = FastBacktraceFrom(p->ips[0], p->max, start_fp, ThisThreadBlock());
  asm volatile("" ::: "memory");
  return n;
}

__attribute__((noinline)) void Middle(void* arg) {
  Pair* p = static_cast<Pair*>(arg);
  p->n[0] = Inner(p, reinterpret_cast<uintptr_t>(__builtin_frame_address(0)));
  void* all[kMax + 1];
  const int n = LibunwindBacktrace(all, p->max + 1);  // from Middle's own resume point
  p->n[1] = n > 0 ? n - 1 : 0;
  memcpy(p->ips[1], all + 1, sizeof(void*) * static_cast<size_t>(p->n[1]));
  asm volatile("" ::: "memory");
}

TEST(FastUnwindTest, FromAFrameFurtherOut) {
  const uint64_t fast_before = FastCaptures();
  for (int rep = 0; rep < 3; ++rep) {
    for (int depth = 0; depth <= 40; ++depth) {
      Pair p;
      FpRecurse(depth, Middle, &p);
      ASSERT_GT(p.n[1], 0);
      ASSERT_EQ(Diff(p), "") << "depth " << depth << " rep " << rep;
      Pair q;  // frames without frame pointers further out
      NoFpRecurse(depth % 7, FpRecurse, depth, Middle, &q);
      ASSERT_EQ(Diff(q), "") << "mixed depth " << depth << " rep " << rep;
    }
    for (int max : {1, 3, 20}) {
      Pair p;
      p.max = max;
      FpRecurse(10, Middle, &p);
      ASSERT_EQ(Diff(p), "") << "max " << max;
    }
  }
  EXPECT_GT(FastCaptures() - fast_before, 100u);
}

TEST(FastUnwindTest, TruncatedAtMax) {
  for (int max : {1, 2, 5, 20}) {
    for (int depth : {0, 10, 30, 10, 0}) {
      Pair p;
      p.max = max;
      FpRecurse(depth, CaptureBoth, &p);
      ASSERT_EQ(Diff(p), "") << "max " << max << " depth " << depth;
    }
  }
}

// A stack walked before, entered through frames never seen: the rule walk
// stops at each new return address, learns that frame's rule alone
// (LearnAt) and goes on, with libunwind's answer; no whole slow walk.
TEST(FastUnwindTest, NewFramesOnAKnownStackAreLearnedOneByOne) {
  for (int i = 0; i < 3; ++i) {
    Pair p;
    FpRecurse(3, CaptureBoth, &p);  // this test's own frames are learned
    ASSERT_EQ(Diff(p), "");
  }
  FastUnwindStats prev = FastUnwindThreadStats();
  for (int i = 0; i < 2; ++i) {
    Pair p;
    FpOnce(CaptureBoth, &p);  // FpOnce, FpOnceInner and this call site: new at first
    ASSERT_EQ(Diff(p), "") << "call " << i;
    const FastUnwindStats now = FastUnwindThreadStats();
    EXPECT_EQ(now.fast - prev.fast, 1u) << "call " << i;
    EXPECT_EQ(now.learned, prev.learned) << "call " << i;
    if (i == 0) {
      EXPECT_GE(now.frames_learned - prev.frames_learned, 2u);
      EXPECT_LE(now.frames_learned - prev.frames_learned, 3u);
    } else {
      EXPECT_EQ(now.frames_learned, prev.frames_learned);  // known now
    }
    prev = now;
  }
}

TEST(FastUnwindTest, AlternatingChainsRejectStalePrefix) {
  // The prefix reuse alone (recent captures would answer these first).
  SetFastUnwindOptions(true, true, /*recent=*/false);
  const FastUnwindStats before = FastUnwindThreadStats();
  for (int i = 0; i < 40; ++i) {
    Pair p;
    FpChainF(i % 2, CaptureBoth, &p);
    ASSERT_EQ(Diff(p), "") << "iteration " << i;
  }
  const FastUnwindStats after = FastUnwindThreadStats();
  SetFastUnwindOptions(true, true);
  EXPECT_GT(after.reused - before.reused, 20u);
  EXPECT_EQ(after.recent, before.recent);
}

TEST(FastUnwindTest, RecentCapturesTellChainsApart) {
  // Both chains reach h at the same depth: the same first frame state, other
  // frames outward. Each capture is the recent one of its own chain.
  FastUnwindStats before{};
  for (int i = -4; i < 40; ++i) {  // the first four learn and walk
    if (i == 0) before = FastUnwindThreadStats();
    Pair p;
    FpChainF((i + 4) / 2 % 2, CaptureBoth, &p);
    ASSERT_EQ(Diff(p), "") << "iteration " << i;
  }
  const FastUnwindStats after = FastUnwindThreadStats();
  EXPECT_EQ(after.recent - before.recent, 40u);
  EXPECT_EQ(after.captures - before.captures, 40u);
}

TEST(FastUnwindTest, RecentCapturesSkipDeadRbpCells) {
  // NoFpRecurse holds data in RBP and its callees save it in their cells:
  // other data each time under the very same frames. The walk never reads
  // those RBPs (each is replaced from an outer cell first), so the frames
  // are a recent capture's again; they must still be exact.
  FastUnwindStats before{};
  for (int i = -2; i < 40; ++i) {  // the first two learn and walk
    if (i == 0) before = FastUnwindThreadStats();
    NoFpSetSeed(1000003 * i + 7);
    Pair p;
    NoFpRecurse(3, nullptr, 0, CaptureBoth, &p);
    ASSERT_EQ(Diff(p), "") << "iteration " << i;
  }
  NoFpSetSeed(3);
  const FastUnwindStats after = FastUnwindThreadStats();
  EXPECT_EQ(after.recent - before.recent, 40u);
}

// CaptureInfo: consecutive serials, repeat only for the previous capture's
// very frames, and with kept_serial the repeated frames left unwritten.
struct RepeatProbe {
  int which = 0;             // FpChainF's chain
  uint64_t kept_serial = 0;  // in
  CaptureInfo info;          // out
  void* ips[kMax];
  int n = 0;
};

void* const kUnwritten = reinterpret_cast<void*>(uintptr_t{1});

__attribute__((noinline)) void CaptureWithInfo(void* arg) {
  auto* r = static_cast<RepeatProbe*>(arg);
  for (void*& ip : r->ips) ip = kUnwritten;
  r->info = CaptureInfo{};
  r->info.kept_serial = r->kept_serial;
  r->n = FastBacktraceFrom(r->ips, kMax, reinterpret_cast<uintptr_t>(__builtin_frame_address(0)),
                           ThisThreadBlock(), &r->info);
  asm volatile("" ::: "memory");
}

void ChainWithInfo(void* arg) {
  FpChainF(static_cast<RepeatProbe*>(arg)->which, CaptureWithInfo, arg);
}

RepeatProbe CaptureAt(int which, int depth, uint64_t kept_serial) {
  RepeatProbe r;
  r.which = which;
  r.kept_serial = kept_serial;
  FpRecurse(depth, ChainWithInfo, &r);
  return r;
}

TEST(FastUnwindTest, RepeatOnlyForThePreviousFrames) {
  std::vector<void*> prev;
  uint64_t prev_serial = 0;
  int repeats = 0, same = 0;
  for (int rep = 0; rep < 3; ++rep) {
    for (int which : {0, 0, 0, 1, 1, 0, 1, 0, 0, 1, 1, 1}) {
      for (int depth : {2, 2, 5, 2}) {
        const RepeatProbe r = CaptureAt(which, depth, 0);
        ASSERT_GT(r.n, 3);
        const std::vector<void*> now(r.ips, r.ips + r.n);
        for (void* ip : now) ASSERT_NE(ip, kUnwritten);
        if (prev_serial != 0) {
          EXPECT_EQ(r.info.serial, prev_serial + 1);
          if (r.info.repeat) {
            ASSERT_EQ(now, prev) << "which " << which << " depth " << depth;
            ++repeats;
          }
          same += now == prev;
        }
        prev = now;
        prev_serial = r.info.serial;
      }
    }
  }
  EXPECT_GT(repeats, 30);  // not vacuous: most of the same frames again are seen so
  EXPECT_LE(repeats, same);

  // With the serial of the capture before: a repeat writes the first frame
  // only. (Captures from one call site: a, b, then c, d from chain 1.)
  RepeatProbe r[4];
  for (int i = 0; i < 4; ++i) {
    // b keeps a; c keeps b (other frames); d keeps b, not c (the one before).
    const uint64_t keep = i == 0 ? 0 : r[i == 3 ? 1 : i - 1].info.serial;
    r[i] = CaptureAt(i < 2 ? 0 : 1, 3, keep);
  }
  const RepeatProbe &a = r[0], &b = r[1], &c = r[2], &d = r[3];
  ASSERT_TRUE(b.info.repeat);
  EXPECT_EQ(b.n, a.n);
  EXPECT_EQ(b.ips[0], a.ips[0]);
  EXPECT_EQ(b.ips[1], kUnwritten);
  // Other frames: all written, whatever the caller keeps.
  EXPECT_FALSE(c.info.repeat);
  for (int i = 0; i < c.n; ++i) EXPECT_NE(c.ips[i], kUnwritten) << i;
  // The same frames again, but the caller keeps an older capture's: all written.
  EXPECT_TRUE(d.info.repeat);
  ASSERT_EQ(d.n, c.n);
  for (int i = 0; i < d.n; ++i) EXPECT_EQ(d.ips[i], c.ips[i]) << i;
}

// RecentTag: a tagged recent capture's tag in one call, as FastBacktraceFrom
// with the same epoch answers (info.tagged); nothing for other frames or
// another epoch.
struct TagProbe {
  int which = 0;       // FpChainF's chain
  bool fast = false;   // FastBacktraceFrom (with info), else RecentTag
  uint32_t epoch = 0;  // in
  CaptureInfo info;    // out (fast)
  bool found = false;  // out (RecentTag)
  uint64_t tag = 0;    // out (RecentTag)
};

__attribute__((noinline)) void CaptureTag(void* arg) {
  auto* t = static_cast<TagProbe*>(arg);
  const auto fp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  if (t->fast) {
    void* ips[kMax];
    t->info = CaptureInfo{};
    t->info.use_recent = true;
    t->info.tag_epoch = t->epoch;
    FastBacktraceFrom(ips, kMax, fp, ThisThreadBlock(), &t->info);
  } else {
    t->found = RecentTag(ThisThreadBlock(), fp, kMax, t->epoch, &t->tag);
  }
  asm volatile("" ::: "memory");
}

void ChainTag(void* arg) { FpChainF(static_cast<TagProbe*>(arg)->which, CaptureTag, arg); }

TagProbe TagAt(int which, bool fast, uint32_t epoch) {  // one call site for all
  TagProbe t;
  t.which = which;
  t.fast = fast;
  t.epoch = epoch;
  FpRecurse(3, ChainTag, &t);
  return t;
}

TEST(FastUnwindTest, RecentTagAnswersTaggedCapturesOnly) {
  // Every capture from one call site (the loop's): chain 0 walked, then
  // kept, and its fourth capture tagged 1234 in epoch 7; chain 1 (the same
  // first frames, others outward) walked and kept, untagged; then the
  // questions.
  struct Step {
    int which;
    bool fast;
    uint32_t epoch;
  };
  const Step steps[] = {{0, true, 7},  {0, true, 7}, {0, true, 7},  {0, true, 7},
                        {1, true, 7},  {1, true, 7}, {1, true, 7},  {1, true, 7},
                        {0, false, 7}, {0, true, 7}, {1, false, 7}, {0, false, 8}};
  TagProbe out[std::size(steps)];
  uint64_t captures[std::size(steps)];
  for (size_t i = 0; i < std::size(steps); ++i) {
    captures[i] = FastUnwindThreadStats().captures;
    out[i] = TagAt(steps[i].which, steps[i].fast, steps[i].epoch);
    if (i == 3) {
      ASSERT_FALSE(out[i].info.tagged);
      TagCapture(ThisThreadBlock(), out[i].info.serial, 7, 1234);
    }
  }
  // RecentTag answers chain 0 with its tag, and counts a capture.
  EXPECT_TRUE(out[8].found);
  EXPECT_EQ(out[8].tag, 1234u);
  EXPECT_EQ(captures[9], captures[8] + 1);
  // FastBacktraceFrom answers the same, with the next serial.
  EXPECT_TRUE(out[9].info.tagged);
  EXPECT_EQ(out[9].info.tag, 1234u);
  EXPECT_EQ(out[9].info.serial, captures[8] + 2);
  // Chain 1's capture is untagged, and another epoch's tag is not this one's:
  // no answer, nothing counted.
  EXPECT_FALSE(out[10].found);
  EXPECT_FALSE(out[11].found);
  EXPECT_EQ(FastUnwindThreadStats().captures, captures[10]);
}

TEST(FastUnwindTest, OuterFramesAreThePreviousCapturesLast) {
  // info.outer frames at ips[outer_at..n) are capture serial - 1's frames
  // outer_from.. to its last, one for one.
  std::vector<void*> prev;
  uint64_t prev_serial = 0;
  int with_outer = 0;
  for (int rep = 0; rep < 3; ++rep) {
    for (int which : {0, 1, 1, 0, 0, 1}) {
      for (int depth : {2, 5, 3, 7, 2}) {
        const RepeatProbe r = CaptureAt(which, depth, 0);
        ASSERT_GT(r.n, 3);
        const std::vector<void*> now(r.ips, r.ips + r.n);
        if (prev_serial != 0 && r.info.outer != 0) {  // the first follows another test's
          ASSERT_EQ(r.info.serial, prev_serial + 1);
          ASSERT_EQ(r.info.outer_at + r.info.outer, static_cast<uint32_t>(r.n));
          ASSERT_EQ(r.info.outer_from + r.info.outer, prev.size());
          for (uint32_t i = 0; i < r.info.outer; ++i) {
            ASSERT_EQ(now[r.info.outer_at + i], prev[r.info.outer_from + i])
                << "which " << which << " depth " << depth << " frame " << i;
          }
          with_outer += !r.info.repeat;
        }
        prev = now;
        prev_serial = r.info.serial;
      }
    }
  }
  EXPECT_GT(with_outer, 20);  // not vacuous: other inner frames, the outer ones copied
}

TEST(FastUnwindTest, FailsWithoutPrefixCheck) {
  // The check that the differential test relies on: with Verify() off, a
  // stale prefix is copied and the comparison catches it.
  for (int i = 0; i < 4; ++i) {
    Pair p;
    FpChainF(i % 2, CaptureBoth, &p);  // learn and keep a previous capture
  }
  SetFastUnwindOptions(/*prefix_reuse=*/true, /*verify_prefix=*/false);
  int differing = 0;
  for (int i = 0; i < 20; ++i) {
    Pair p;
    FpChainF(i % 2, CaptureBoth, &p);
    if (!Diff(p).empty()) ++differing;
  }
  SetFastUnwindOptions(true, true);
  EXPECT_GT(differing, 5);
}

TEST(FastUnwindTest, RuleWalkAloneWithoutReuse) {
  SetFastUnwindOptions(/*prefix_reuse=*/false, /*verify_prefix=*/true);
  for (int i = 0; i < 40; ++i) {
    Pair p;
    FpChainF(i % 2, CaptureBoth, &p);
    ASSERT_EQ(Diff(p), "") << "chain " << i;
    Pair q;
    FpRecurse(i, CaptureBoth, &q);
    ASSERT_EQ(Diff(q), "") << "depth " << i;
  }
  SetFastUnwindOptions(true, true);
}

TEST(FastUnwindTest, VariableLengthArraysRbpBasedCfa) {
  const uint64_t fast_before = FastCaptures();
  const int sizes[] = {16, 1000, 48, 4096, 16, 70000, 200, 16};
  for (int rep = 0; rep < 4; ++rep) {
    for (int bytes : sizes) {
      Pair p;
      FpAlloca(bytes, CaptureBoth, &p);
      ASSERT_EQ(Diff(p), "") << bytes << " bytes";
      Pair q;  // VLA frame in the middle of a chain
      NoFpRecurse(3, FpAlloca, bytes, CaptureBoth, &q);
      ASSERT_EQ(Diff(q), "") << bytes << " bytes under NoFpRecurse";
    }
  }
  EXPECT_GT(FastCaptures() - fast_before, 30u);
}

TEST(FastUnwindTest, FramesWithoutFramePointer) {
  const uint64_t fast_before = FastCaptures();
  for (int rep = 0; rep < 3; ++rep) {
    for (int depth = 0; depth < 30; ++depth) {
      Pair p;
      NoFpRecurse(depth, nullptr, 0, CaptureBoth, &p);
      ASSERT_EQ(Diff(p), "") << "depth " << depth;
      Pair q;  // frame-pointer frames above and below
      NoFpRecurse(depth % 5, FpRecurse, depth, CaptureBoth, &q);
      ASSERT_EQ(Diff(q), "") << "mixed depth " << depth;
    }
  }
  EXPECT_GT(FastCaptures() - fast_before, 100u);
}

// Signal handlers -----------------------------------------------------------

Pair g_signal_pair;
std::atomic<int> g_signal_depth{0};

void OnSignal(int) {
  const int depth = g_signal_depth.load();
  if (depth % 2 == 0) {
    FpRecurse(depth, CaptureBoth, &g_signal_pair);
  } else {
    NoFpRecurse(depth, nullptr, 0, CaptureBoth, &g_signal_pair);
  }
}

void RaiseAt(void*) { raise(SIGUSR1); }

void ExpectSignalCapturesAgree(const char* what) {
  for (int rep = 0; rep < 2; ++rep) {
    for (int depth = 0; depth < 12; ++depth) {
      g_signal_depth.store(depth);
      g_signal_pair = Pair();
      FpRecurse(depth, RaiseAt, nullptr);  // the signal arrives `depth` frames down
      ASSERT_GT(g_signal_pair.n[1], 0) << what;
      ASSERT_EQ(Diff(g_signal_pair), "") << what << " depth " << depth;
    }
  }
}

TEST(FastUnwindTest, InSignalHandler) {
  struct sigaction sa = {}, old;
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR1, &sa, &old), 0);
  ExpectSignalCapturesAgree("same stack");
  sigaction(SIGUSR1, &old, nullptr);
}

TEST(FastUnwindTest, InSignalHandlerOnAlternateStack) {
  const size_t bytes = 256 * 1024;
  void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  stack_t ss = {}, old_ss;
  ss.ss_sp = mem;
  ss.ss_size = bytes;
  ASSERT_EQ(sigaltstack(&ss, &old_ss), 0);
  struct sigaction sa = {}, old;
  sa.sa_handler = OnSignal;
  sa.sa_flags = SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR1, &sa, &old), 0);
  ExpectSignalCapturesAgree("alternate stack");
  sigaction(SIGUSR1, &old, nullptr);
  sigaltstack(&old_ss, nullptr);
  munmap(mem, bytes);
  // And the thread's own stack still unwinds right afterwards.
  Pair p;
  FpRecurse(5, CaptureBoth, &p);
  EXPECT_EQ(Diff(p), "");
}

// Threads -------------------------------------------------------------------

// Eight threads capture concurrently: every capture agrees with libunwind,
// and every thread ends up on the fast path. Learning is a try-lock, so a
// thread falls back while another learns, and a learner preempted on a
// loaded machine can hold it for many milliseconds: each thread repeats its
// rounds until 40 of its captures were fast (one round's worth), for at
// most 20 seconds.
TEST(FastUnwindTest, ManyThreads) {
  std::atomic<int> failures{0};
  std::atomic<int> slow_threads{0};
  std::string first_failure;
  std::atomic<bool> recorded{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      for (int rep = 0; rep < 3 || (FastUnwindThreadStats().fast < 40 &&
                                    std::chrono::steady_clock::now() < deadline);
           ++rep) {
        for (int depth = 0; depth < 40; ++depth) {
          Pair p;
          switch ((depth + t) % 4) {
            case 0:
              FpRecurse(depth, CaptureBoth, &p);
              break;
            case 1:
              FpChainF(depth % 2, CaptureBoth, &p);
              break;
            case 2:
              NoFpRecurse(depth % 7, FpAlloca, 16 + depth * 24, CaptureBoth, &p);
              break;
            default:
              NoFpRecurse(depth, nullptr, 0, CaptureBoth, &p);
              break;
          }
          const std::string diff = Diff(p);
          if (!diff.empty()) {
            failures.fetch_add(1);
            if (!recorded.exchange(true)) first_failure = diff;
          }
        }
      }
      if (FastUnwindThreadStats().fast < 40) slow_threads.fetch_add(1);
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0) << first_failure;
  EXPECT_EQ(slow_threads.load(), 0);
}

// Small stacks --------------------------------------------------------------

// The lowest byte of the spare stack that no longer holds the paint: how
// deep the slow path went, counted from the top.
size_t SpareStackUsed(const ThreadBlock& b) {
  size_t i = 0;
  while (i < sizeof(b.spare_stack) && b.spare_stack[i] == 0xA5) ++i;
  return sizeof(b.spare_stack) - i;
}

// A new thread's first captures take the slow path (libunwind, learning):
// on its block's spare stack, not its own, with room to spare there, and
// still what unw_backtrace returns.
TEST(FastUnwindTest, SlowPathRunsOnTheSpareStack) {
  std::thread([] {
    ThreadBlock* b = ThisThreadBlock();
    ASSERT_NE(b, nullptr);
    memset(b->spare_stack, 0xA5, sizeof(b->spare_stack));
    for (int depth = 0; depth < 30; depth += 3) {
      Pair p;
      NoFpRecurse(depth % 5, FpRecurse, depth, CaptureBoth, &p);
      ASSERT_EQ(Diff(p), "") << "depth " << depth;
    }
    const FastUnwindStats s = FastUnwindThreadStats();
    EXPECT_GT(s.learned + s.fallback, 0u);  // not vacuous: the slow path ran
    const size_t used = SpareStackUsed(*b);
    ::testing::Test::RecordProperty("spare_stack_used", static_cast<int>(used));
    EXPECT_GT(used, 1024u) << "the slow path did not run on the spare stack";
    EXPECT_LT(used, sizeof(b->spare_stack) / 2) << "little room left on the spare stack";
    ReleaseThreadBlock();
  }).join();
}

// The frames FastBacktrace returns for chains 0..24 deep, run as a thread's
// body: on an ordinary stack (checked against unw_backtrace there) and on
// the smallest stack glibc allows, where unw_backtrace itself would not fit
// under the recorder's frames. Both must give the same frames.
struct SmallStackRun {
  bool fast_only = false;
  Pair pairs[25];
  bool ok = false;
};

void* SmallStackBody(void* arg) {
  auto* run = static_cast<SmallStackRun*>(arg);
  for (int depth = 0; depth < 25; ++depth) {
    run->pairs[depth].fast_only = run->fast_only;
    FpRecurse(depth, CaptureBoth, &run->pairs[depth]);
  }
  run->ok = true;
  ReleaseThreadBlock();
  return nullptr;
}

bool RunThread(size_t stack_bytes, SmallStackRun* run) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  if (stack_bytes != 0 && pthread_attr_setstacksize(&attr, stack_bytes) != 0) return false;
  pthread_t t;
  const int rc = pthread_create(&t, &attr, SmallStackBody, run);
  pthread_attr_destroy(&attr);
  if (rc != 0) return false;
  pthread_join(t, nullptr);
  return run->ok;
}

TEST(FastUnwindTest, SmallThreadStacks) {
  static SmallStackRun ordinary, small;
  ASSERT_TRUE(RunThread(0, &ordinary));
  for (int depth = 0; depth < 25; ++depth) {
    ASSERT_EQ(Diff(ordinary.pairs[depth]), "") << "depth " << depth;
  }
  small.fast_only = true;
#if defined(__SANITIZE_ADDRESS__)
  const size_t bytes = 4 * PTHREAD_STACK_MIN;  // ASan's own frames are larger
#else
  const size_t bytes = PTHREAD_STACK_MIN;
#endif
  ASSERT_TRUE(RunThread(bytes, &small));
  for (int depth = 0; depth < 25; ++depth) {
    const Pair& a = ordinary.pairs[depth];
    const Pair& b = small.pairs[depth];
    ASSERT_EQ(b.n[0], a.n[0]) << "depth " << depth;
    ASSERT_EQ(memcmp(a.ips[0], b.ips[0], sizeof(void*) * a.n[0]), 0) << "depth " << depth;
  }
}

// dlopen / dlclose ----------------------------------------------------------

std::string PluginPath() {
  const char* srcdir = getenv("TEST_SRCDIR");
  std::string base = srcdir != nullptr ? std::string(srcdir) + "/heaprec/" : std::string();
  return base + "recorder/libfast_unwind_test_plugin.so";
}

// Runs the plugin's chain a few times; returns a return address inside it.
uintptr_t RunPlugin(void* handle) {
  auto* recurse =
      reinterpret_cast<void (*)(int, UnwindProbe, void*)>(dlsym(handle, "PluginRecurse"));
  EXPECT_NE(recurse, nullptr);
  if (recurse == nullptr) return 0;
  Dl_info info;
  uintptr_t inside = 0;
  for (int i = 0; i < 6; ++i) {
    Pair p;
    recurse(i % 3 + 1, CaptureBoth, &p);
    EXPECT_EQ(Diff(p), "") << "plugin call " << i;
    for (int f = 0; f < p.n[0]; ++f) {
      if (dladdr(p.ips[0][f], &info) != 0 &&
          std::string(info.dli_fname).find("fast_unwind_test_plugin") != std::string::npos) {
        inside = reinterpret_cast<uintptr_t>(p.ips[0][f]);
      }
    }
  }
  return inside;
}

TEST(FastUnwindTest, DlopenDlclose) {
  const std::string path = PluginPath();
  for (int round = 0; round < 3; ++round) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle, nullptr) << dlerror();
    const uintptr_t inside = RunPlugin(handle);
    ASSERT_NE(inside, 0u);
    EXPECT_NE(LookupUnwindRule(inside, UnwindGeneration()).kind, RuleKind::kNone);
    // What the recorder's dlclose hook does.
    InvalidateUnwindRules();
    dlclose(handle);
    InvalidateUnwindRules();
    EXPECT_EQ(LookupUnwindRule(inside, UnwindGeneration()).kind, RuleKind::kNone)
        << "a rule for unloaded code survived dlclose";
  }
  Pair p;
  FpRecurse(3, CaptureBoth, &p);
  EXPECT_EQ(Diff(p), "");
}

}  // namespace
}  // namespace heaprec::recorder::preload
