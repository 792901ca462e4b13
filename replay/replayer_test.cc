// Replayer: replays compiled traces against the real allocator through a
// checking policy that knows every live block, so a free that ran before its
// allocation, a misaligned block or a wrong live byte count fails the test.
#include "replay/replayer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <random>
#include <set>

#include "format/test_traces.h"
#include "replay/compiled_image.h"
#include "replay/null_allocator.h"
#include "replay/replay_test_util.h"
#include "replay/system_allocator.h"

namespace heaprec::replay {
namespace {

using format::Api;
using testing::Alloc;
using testing::CompileBytes;
using testing::Free;
using testing::Realloc;
using testing::TraceBytes;

// The system allocator, watched: every block it hands out and takes back.
// With fake set, no memory at all: each call hands out a new address (for
// sample traces, whose random sizes no allocator could serve).
struct Checking {
  static std::mutex mu;
  static std::map<void*, uint64_t> live;
  static uint64_t live_bytes, peak_bytes, errors, aligned_checked;
  static bool fake;
  static uintptr_t next_fake;

  static void Reset(bool fake_blocks = false) {
    live.clear();
    live_bytes = peak_bytes = errors = aligned_checked = 0;
    fake = fake_blocks;
  }
  // Frees what the trace left live (a real program's leaks), for LeakSanitizer.
  static void FreeAll() {
    if (!fake) {
      for (const auto& [p, size] : live) free(p);
    }
    live.clear();
  }
  static void* FakeBlock() {
    std::lock_guard<std::mutex> lock(mu);
    next_fake += 1 << 20;
    return reinterpret_cast<void*>(next_fake);
  }
  static void Made(void* p, uint64_t size, uint64_t align) {
    if (p == nullptr) {
      ++errors;
      return;
    }
    if (align > 1) {
      ++aligned_checked;
      if (reinterpret_cast<uintptr_t>(p) % align != 0) ++errors;
    }
    live[p] = size;
    live_bytes += size;
    if (live_bytes > peak_bytes) peak_bytes = live_bytes;
  }
  static bool Gone(void* p) {
    const auto it = live.find(p);
    if (it == live.end()) {  // freed before it was made, or twice
      ++errors;
      return false;
    }
    live_bytes -= it->second;
    live.erase(it);
    return true;
  }
  static uint64_t AlignmentOf(const Op& op) {
    const auto api = static_cast<Api>(op.api);
    if (api == Api::kValloc || api == Api::kPvalloc) return 4096;
    return uint64_t{1} << op.align_log2;
  }

  static void* Alloc(const Op& op) {
    void* p = fake ? FakeBlock() : SystemAllocator::Alloc(op);
    std::lock_guard<std::mutex> lock(mu);
    Made(p, op.size, AlignmentOf(op));
    return p;
  }
  static void* Realloc(void* p, const Op& op) {
    std::unique_lock<std::mutex> lock(mu);
    if (p != nullptr && !Gone(p)) p = nullptr;  // never hand realloc a block not live
    lock.unlock();
    void* q = fake ? (op.size == 0 ? nullptr : FakeBlock()) : SystemAllocator::Realloc(p, op);
    lock.lock();
    if (q != nullptr) Made(q, op.size, 1);
    return q;
  }
  static void Free(void* p, const Op& op) {
    bool was_live;
    {
      std::lock_guard<std::mutex> lock(mu);
      was_live = Gone(p);
    }
    if (was_live && !fake) SystemAllocator::Free(p, op);
  }
  static void FreeAfterRealloc(void* p) { Free(p, Op{static_cast<uint8_t>(Api::kFree)}); }
};
std::mutex Checking::mu;
std::map<void*, uint64_t> Checking::live;
uint64_t Checking::live_bytes, Checking::peak_bytes, Checking::errors, Checking::aligned_checked;
bool Checking::fake;
uintptr_t Checking::next_fake = uintptr_t{1} << 40;

// Checking (fake blocks), and which OS thread ran each recorded thread's
// allocations: test traces give thread k's allocations sizes 1000 k + i.
struct WhoRuns {
  static std::map<uint64_t, std::set<pid_t>> tids;  // recorded thread -> tids
  static void* Alloc(const Op& op) {
    {
      std::lock_guard<std::mutex> lock(Checking::mu);
      tids[op.size / 1000].insert(gettid());
    }
    return Checking::Alloc(op);
  }
  static void* Realloc(void* p, const Op& op) { return Checking::Realloc(p, op); }
  static void Free(void* p, const Op& op) { Checking::Free(p, op); }
  static void FreeAfterRealloc(void* p) { Checking::FreeAfterRealloc(p); }
};
std::map<uint64_t, std::set<pid_t>> WhoRuns::tids;

template <class Policy>
void Replay(const CompiledTrace& trace, Touch touch) {
  std::string error;
  const int fd = WriteImage(trace, &error);
  ASSERT_GE(fd, 0) << error;
  Image image;
  ASSERT_TRUE(image.Map(fd, &error)) << error;
  close(fd);
  Replayer r(image, touch, &ReplayThread<Policy>);
  ASSERT_TRUE(r.Start(&error)) << error;
  r.Run();
}

// A single-threaded trace of every form of call, from a seed.
std::vector<format::Event> RandomSingleThread(uint32_t seed, int events) {
  std::mt19937 rng(seed);
  std::vector<format::Event> ev;
  std::vector<uint64_t> live;
  uint64_t next = 0x10000;
  for (int i = 0; i < events; ++i) {
    const uint64_t size = 1 + rng() % 5000;
    const unsigned what = live.empty() ? 0 : rng() % 6;
    const size_t pick = live.empty() ? 0 : rng() % live.size();
    if (what <= 1) {
      ev.push_back(Alloc(1, next, size, what == 0 ? Api::kMalloc : Api::kCalloc));
      live.push_back(next++);
    } else if (what == 2) {
      ev.push_back(Free(1, live[pick]));
      live.erase(live.begin() + static_cast<long>(pick));
    } else if (what == 3) {
      ev.push_back(Realloc(1, live[pick], live[pick], size));  // in place
    } else if (what == 4) {
      testing::MovedRealloc(&ev, 1, live[pick], next, size);
      live[pick] = next++;
    } else {
      ev.push_back(Realloc(1, live[pick], 0, 0));  // realloc(p, 0)
      live.erase(live.begin() + static_cast<long>(pick));
    }
  }
  return ev;
}

TEST(Replayer, SingleThreadReplayReachesTheAnalyzersPeakExactly) {
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    const testing::Compiled c = CompileBytes(TraceBytes(RandomSingleThread(seed, 4000)));
    Checking::Reset();
    Replay<Checking>(c.trace, Touch::kPage);
    EXPECT_EQ(Checking::errors, 0u) << "seed " << seed;
    ASSERT_GT(c.analyzer_peak, 0u);
    EXPECT_EQ(Checking::peak_bytes, c.analyzer_peak) << "seed " << seed;
    Checking::FreeAll();
  }
}

TEST(Replayer, SampleTracesReplayWithoutAFreeOfAnUnknownBlock) {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    const std::string bytes = format::testing::SampleTraceBytes(3000, 500, seed, nullptr);
    const testing::Compiled c = CompileBytes(bytes);
    Checking::Reset(/*fake_blocks=*/true);
    Replay<Checking>(c.trace, Touch::kNone);
    EXPECT_EQ(Checking::errors, 0u) << "seed " << seed;
  }
}

// Thread 1 makes large blocks (slow: fully touched), thread 2 frees or
// moves each right after; thread 1 frees the moved ones. Without the waits
// thread 2 would run far ahead and free blocks not yet made.
TEST(Replayer, CrossThreadFreesNeverRunBeforeTheirAllocation) {
  std::vector<format::Event> ev;
  uint64_t next = 0x100000;
  for (int i = 0; i < 300; ++i) {
    const uint64_t a = next++;
    ev.push_back(Alloc(1, a, 64 * 1024));
    if (i % 3 == 0) {
      const uint64_t b = next++;
      testing::MovedRealloc(&ev, 2, a, b, 80 * 1024);
      ev.push_back(Free(1, b));
    } else {
      ev.push_back(Free(2, a));
    }
  }
  const testing::Compiled c = CompileBytes(TraceBytes(ev));
  ASSERT_EQ(c.trace.stats.cross_thread_waits, 400u);
  for (int run = 0; run < 5; ++run) {
    Checking::Reset();
    Replay<Checking>(c.trace, Touch::kFull);
    EXPECT_EQ(Checking::errors, 0u) << "run " << run;
    EXPECT_TRUE(Checking::live.empty());
  }
  Replay<NullAllocator>(c.trace, Touch::kNone);  // waits, no allocator: must not hang
}

// Threads 1 and 3 are workers, 2 the main thread (tid == SampleProcess's
// pid 4242) though thread 1 makes the first event; each frees the next
// one's blocks, so every thread waits on another.
TEST(Replayer, MainThreadRunsOnTheCallingThreadOthersOnThreadsOfTheirOwn) {
  ASSERT_EQ(gettid(), getpid()) << "gtest runs tests on the main thread";
  std::vector<format::Event> ev;
  uint64_t next = 0x100000;
  for (uint32_t i = 0; i < 300; ++i) {
    uint64_t made[4];
    for (uint32_t t = 1; t <= 3; ++t) {
      made[t] = next++;
      ev.push_back(Alloc(t, made[t], 1000 * t + i));
    }
    for (uint32_t t = 1; t <= 3; ++t) ev.push_back(Free(t % 3 + 1, made[t]));
  }
  const std::vector<format::ThreadInfo> threads = {
      {1, 4300, "worker-1", 0}, {2, 4242, "main", 0}, {3, 4301, "worker-3", 0}};
  const testing::Compiled c = CompileBytes(TraceBytes(ev, threads));
  ASSERT_EQ(c.trace.main_thread, 1u);
  ASSERT_EQ(c.trace.stats.cross_thread_waits, 900u);
  for (int run = 0; run < 3; ++run) {
    Checking::Reset(/*fake_blocks=*/true);
    WhoRuns::tids.clear();
    Replay<WhoRuns>(c.trace, Touch::kNone);
    EXPECT_EQ(Checking::errors, 0u) << "run " << run;
    EXPECT_TRUE(Checking::live.empty());
    ASSERT_EQ(WhoRuns::tids.size(), 3u);
    EXPECT_EQ(WhoRuns::tids[2], std::set<pid_t>{gettid()});
    ASSERT_EQ(WhoRuns::tids[1].size(), 1u);
    ASSERT_EQ(WhoRuns::tids[3].size(), 1u);
    const pid_t one = *WhoRuns::tids[1].begin(), three = *WhoRuns::tids[3].begin();
    EXPECT_NE(one, gettid());
    EXPECT_NE(three, gettid());
    EXPECT_NE(one, three);
  }
}

// A single-threaded trace without thread records: its thread is the main one.
TEST(Replayer, SingleThreadTraceRunsOnTheCallingThread) {
  const testing::Compiled c = CompileBytes(TraceBytes(RandomSingleThread(7, 2000)));
  ASSERT_EQ(c.trace.main_thread, 0u);
  Checking::Reset(/*fake_blocks=*/true);
  WhoRuns::tids.clear();
  Replay<WhoRuns>(c.trace, Touch::kNone);
  EXPECT_EQ(Checking::errors, 0u);
  std::set<pid_t> all;
  for (const auto& [thread, tids] : WhoRuns::tids) all.insert(tids.begin(), tids.end());
  EXPECT_EQ(all, std::set<pid_t>{gettid()});
}

// The main thread named but without events: every replay thread gets a
// thread of its own, none runs on the caller's.
TEST(Replayer, SilentMainThreadLeavesEveryThreadOnItsOwn) {
  std::vector<format::Event> ev;
  uint64_t next = 0x100000;
  for (uint32_t i = 0; i < 100; ++i) {
    const uint64_t a = next++, b = next++;
    ev.push_back(Alloc(1, a, 1000 + i));
    ev.push_back(Alloc(2, b, 2000 + i));
    ev.push_back(Free(2, a));
    ev.push_back(Free(1, b));
  }
  const std::vector<format::ThreadInfo> threads = {
      {1, 4300, "worker-1", 0}, {2, 4301, "worker-2", 0}, {3, 4242, "main", 0}};
  const testing::Compiled c = CompileBytes(TraceBytes(ev, threads));
  ASSERT_EQ(c.trace.main_thread, kNoMainThread);
  Checking::Reset(/*fake_blocks=*/true);
  WhoRuns::tids.clear();
  Replay<WhoRuns>(c.trace, Touch::kNone);
  EXPECT_EQ(Checking::errors, 0u);
  ASSERT_EQ(WhoRuns::tids.size(), 2u);
  ASSERT_EQ(WhoRuns::tids[1].size(), 1u);
  ASSERT_EQ(WhoRuns::tids[2].size(), 1u);
  EXPECT_NE(*WhoRuns::tids[1].begin(), gettid());
  EXPECT_NE(*WhoRuns::tids[2].begin(), gettid());
  EXPECT_NE(*WhoRuns::tids[1].begin(), *WhoRuns::tids[2].begin());
}

extern "C" char end;  // the end of the executable's data: glibc's brk heap starts above

// What the replay is for: glibc serves a single-threaded program from its
// main arena, in the heap grown by brk; a replay on a thread of its own would
// get an mmap'd arena instead (10,211 mprotect calls replaying sqlite3, where
// the program made 356 brk calls and 8 mprotect).
TEST(Replayer, GlibcServesTheMainThreadsOpsFromTheBrkHeap) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer replaces glibc's malloc";
#endif
  std::vector<format::Event> ev;
  for (uint64_t i = 0; i < 2000; ++i) ev.push_back(Alloc(1, 0x100000 + i, 100 + i));
  const testing::Compiled c = CompileBytes(TraceBytes(ev));
  std::string error;
  const int fd = WriteImage(c.trace, &error);
  ASSERT_GE(fd, 0) << error;
  Image image;
  ASSERT_TRUE(image.Map(fd, &error)) << error;
  close(fd);
  Replayer r(image, Touch::kPage, &ReplayThread<SystemAllocator>);
  ASSERT_TRUE(r.Start(&error)) << error;
  r.Run();
  const auto heap_start = reinterpret_cast<uintptr_t>(&end);
  const auto brk_now = reinterpret_cast<uintptr_t>(sbrk(0));
  int in_brk_heap = 0;
  for (uint64_t s = 0; s < c.trace.stats.slots; ++s) {
    const auto p = reinterpret_cast<uintptr_t>(r.slots()[s]);
    if (p >= heap_start && p < brk_now) ++in_brk_heap;
    free(r.slots()[s]);
  }
  EXPECT_EQ(in_brk_heap, 2000);
}

TEST(Replayer, AlignmentHonoredForEveryAlignedKind) {
  const Api aligned[] = {Api::kPosixMemalign,
                         Api::kAlignedAlloc,
                         Api::kMemalign,
                         Api::kNewAligned,
                         Api::kNewArrayAligned,
                         Api::kNewAlignedNothrow,
                         Api::kNewArrayAlignedNothrow};
  const Api deletes[] = {Api::kFree,
                         Api::kFree,
                         Api::kFree,
                         Api::kDeleteSizedAligned,
                         Api::kDeleteArrayAligned,
                         Api::kDeleteAlignedNothrow,
                         Api::kDeleteArrayAlignedNothrow};
  std::vector<format::Event> ev;
  uint64_t next = 0x100000;
  int expected = 0;
  for (int k = 0; k < 7; ++k) {
    for (uint64_t align : {16, 64, 256, 4096, 65536}) {
      const uint64_t size = 2 * align;  // aligned_alloc: a multiple of align
      ev.push_back(Alloc(1, next, size, aligned[k], align));
      ev.push_back(Free(1, next++, deletes[k], size, align));
      ++expected;
    }
  }
  for (Api api : {Api::kValloc, Api::kPvalloc}) {
    ev.push_back(Alloc(1, next, 5000, api));
    ev.push_back(Free(1, next++));
    ++expected;
  }
  const testing::Compiled c = CompileBytes(TraceBytes(ev));
  Checking::Reset();
  Replay<Checking>(c.trace, Touch::kPage);
  EXPECT_EQ(Checking::errors, 0u);
  EXPECT_EQ(Checking::aligned_checked, static_cast<uint64_t>(expected));
}

}  // namespace
}  // namespace heaprec::replay
