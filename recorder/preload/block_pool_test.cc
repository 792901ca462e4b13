// BlockPool (block_pool.h): blocks handed out zeroed, aligned and distinct,
// up to the capacity; released ones handed out again before any new one is
// carved; a pop interrupted by pop, pop, push (ABA) does not corrupt the
// free list; threads taking and giving back blocks concurrently never share
// one (each writes its own pattern over its block and finds it intact) and
// lose none (every carved block is back on the free list at the end); a
// fork child frees every block but its own; a reservation that cannot be
// mapped yields no block and no crash.
#include "recorder/preload/block_pool.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

namespace heaprec::recorder::preload {
namespace {

bool AllZero(const void* p, size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) {
    if (b[i] != 0) return false;
  }
  return true;
}

// A pool that gives its reservation back at the end of a test.
struct TestPool {
  TestPool(size_t bytes, uint32_t capacity) : pool(bytes, capacity) {}
  ~TestPool() { pool.UnmapForTesting(); }
  BlockPool pool;
};

TEST(BlockPoolTest, HandsOutZeroedAlignedDistinctBlocksUpToCapacity) {
  TestPool t(5000, 6);
  BlockPool& pool = t.pool;
  EXPECT_EQ(pool.stride(), 8192u);  // 64-byte header + 5000 bytes, in whole pages
  std::set<void*> seen;
  for (int i = 0; i < 6; ++i) {
    void* b = pool.TryAcquire();
    ASSERT_NE(b, nullptr) << i;
    const auto at = reinterpret_cast<uintptr_t>(b);
    EXPECT_EQ(at % 64, 0u);
    EXPECT_GE(at, pool.start());
    EXPECT_LE(at + 5000, pool.start() + pool.reserved_bytes());
    EXPECT_TRUE(AllZero(b, 5000));
    memset(b, 0xA5, 5000);  // writable, all of it
    EXPECT_TRUE(seen.insert(b).second) << "block handed out twice";
  }
  EXPECT_EQ(pool.carved(), 6u);
  EXPECT_EQ(pool.TryAcquire(), nullptr);  // all in use
  EXPECT_EQ(pool.carved(), 6u);
  EXPECT_EQ(pool.CountFreeForTesting(), 0u);
  for (void* b : seen) pool.Release(b);
  EXPECT_EQ(pool.CountFreeForTesting(), 6u);
}

TEST(BlockPoolTest, ReusesReleasedBlocksZeroedBeforeCarvingNewOnes) {
  TestPool t(100, 64);
  BlockPool& pool = t.pool;
  void* a = pool.TryAcquire();
  void* b = pool.TryAcquire();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  memset(a, 0x5A, 100);
  memset(b, 0x5A, 100);
  pool.Release(a);
  pool.Release(b);
  // Last in, first out, each wiped of what its previous user left.
  void* again_b = pool.TryAcquire();
  void* again_a = pool.TryAcquire();
  EXPECT_EQ(again_b, b);
  EXPECT_EQ(again_a, a);
  EXPECT_TRUE(AllZero(a, 100));
  EXPECT_TRUE(AllZero(b, 100));
  EXPECT_EQ(pool.carved(), 2u);
  // A thousand take-and-give-backs of one block at a time carve nothing more.
  for (int i = 0; i < 1000; ++i) pool.Release(pool.TryAcquire());
  EXPECT_EQ(pool.carved(), 3u);
  pool.Release(a);
  pool.Release(b);
  EXPECT_EQ(pool.CountFreeForTesting(), 3u);
}

TEST(BlockPoolTest, IgnoresWhatIsNotOneOfItsBlocks) {
  TestPool t(100, 4);
  BlockPool& pool = t.pool;
  void* a = pool.TryAcquire();
  ASSERT_NE(a, nullptr);
  int local = 0;
  pool.Release(nullptr);
  pool.Release(&local);
  pool.Release(static_cast<char*>(a) + 8);  // inside a block, not its start
  EXPECT_EQ(pool.CountFreeForTesting(), 0u);
  pool.Release(a);
  EXPECT_EQ(pool.CountFreeForTesting(), 1u);
}

TEST(BlockPoolTest, NoBlockWhenTheReservationCannotBeMapped) {
  // 1 MiB blocks, 2^32 - 1 of them: more address space than x86-64 has.
  TestPool t(1u << 20, 0xFFFFFFFFu);
  BlockPool& pool = t.pool;
  EXPECT_FALSE(pool.Reserve());
  EXPECT_EQ(pool.TryAcquire(), nullptr);
  EXPECT_EQ(pool.start(), 0u);
  pool.Release(nullptr);
}

// The ABA interleaving, made to happen: a pop reads the top (a) and its link
// (b); before its compare-and-swap, another pop takes a, another b, and a
// is given back, so the top is a again but its link is now c. The first
// pop must not install b (in use) as the top: the generation in the head
// makes its compare-and-swap fail and it starts over.
struct AbaInterleaving {
  BlockPool* pool;
  bool done = false;
  void* a = nullptr;
  void* b = nullptr;
};

void InterleaveAba(void* arg) {
  auto* s = static_cast<AbaInterleaving*>(arg);
  if (s->done) return;
  s->done = true;
  s->a = s->pool->TryAcquire();
  s->b = s->pool->TryAcquire();
  s->pool->Release(s->a);
}

TEST(BlockPoolTest, APopThatSleptThroughAPopPopPushDoesNotInstallATakenBlock) {
  TestPool t(100, 3);
  BlockPool& pool = t.pool;
  void* x = pool.TryAcquire();
  void* y = pool.TryAcquire();
  void* z = pool.TryAcquire();
  pool.Release(z);
  pool.Release(y);
  pool.Release(x);  // the free list: x, y, z
  AbaInterleaving s{&pool};
  pool.SetPopHookForTesting(InterleaveAba, &s);
  void* got = pool.TryAcquire();
  pool.SetPopHookForTesting(nullptr, nullptr);
  ASSERT_EQ(s.a, x);
  ASSERT_EQ(s.b, y);  // held from here on
  EXPECT_EQ(got, x);  // x was given back, then taken by the first pop
  // Only z is free: y is held, and must not be handed out a second time.
  EXPECT_EQ(pool.CountFreeForTesting(), 1u);
  void* last = pool.TryAcquire();
  EXPECT_EQ(last, z);
  EXPECT_NE(last, s.b);
  EXPECT_EQ(pool.TryAcquire(), nullptr);
  for (void* p : {got, s.b, last}) pool.Release(p);
  EXPECT_EQ(pool.CountFreeForTesting(), 3u);
}

// Threads take a block, fill it with their own pattern, check it, wipe their
// mark and give it back, many times over, with fewer blocks than threads (so
// blocks change hands all the time and the free list's head is contended:
// the test above forces the ABA case; this one lets it happen if it will).
// An owner table catches sharing at once; the pattern
// catches it in the memory. Under TSan, the free list must also order one
// user's writes before the next user's.
TEST(BlockPoolTest, ConcurrentThreadsNeverShareAndLoseNoBlock) {
  constexpr int kThreads = 8;
  constexpr uint32_t kCapacity = 4;
  constexpr size_t kBytes = 256;
#if defined(__SANITIZE_THREAD__)
  constexpr int kRounds = 3000;
#else
  constexpr int kRounds = 50000;
#endif
  TestPool t(kBytes, kCapacity);
  BlockPool& pool = t.pool;
  ASSERT_TRUE(pool.Reserve());
  std::atomic<int> owner[kCapacity] = {};
  std::atomic<int> shared{0}, corrupted{0}, acquired{0}, refused{0};
  std::vector<std::thread> threads;
  for (int id = 1; id <= kThreads; ++id) {
    threads.emplace_back([&, id] {
      for (int r = 0; r < kRounds; ++r) {
        auto* b = static_cast<unsigned char*>(pool.TryAcquire());
        if (b == nullptr) {
          refused.fetch_add(1, std::memory_order_relaxed);
          std::this_thread::yield();
          continue;
        }
        acquired.fetch_add(1, std::memory_order_relaxed);
        const size_t index = (reinterpret_cast<uintptr_t>(b) - pool.start()) / pool.stride();
        int none = 0;
        if (index >= kCapacity || !owner[index].compare_exchange_strong(none, id)) {
          shared.fetch_add(1);
          continue;  // keep the block: giving it back twice would hide nothing
        }
        if (!AllZero(b, kBytes)) corrupted.fetch_add(1);
        memset(b, id, kBytes);
        for (size_t i = 0; i < kBytes; i += 37) {
          if (b[i] != id) corrupted.fetch_add(1);
        }
        owner[index].store(0);
        pool.Release(b);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(shared.load(), 0);
  EXPECT_EQ(corrupted.load(), 0);
  EXPECT_GT(acquired.load(), kRounds);  // not vacuous
  EXPECT_LE(pool.carved(), kCapacity);
  EXPECT_EQ(pool.CountFreeForTesting(), pool.carved());  // every block came back
}

// Threads started and ended by the thousand, a few alive at a time, each
// taking one block for its life: the pool carves as many blocks as were
// alive at once, not one per thread.
TEST(BlockPoolTest, ThreadsStartingAndEndingReuseBlocks) {
  constexpr int kAtOnce = 4;
  constexpr int kBatches = 250;
  TestPool t(1000, 64);
  BlockPool& pool = t.pool;
  std::set<void*> seen;
  for (int batch = 0; batch < kBatches; ++batch) {
    void* got[kAtOnce] = {};
    std::vector<std::thread> threads;
    for (int i = 0; i < kAtOnce; ++i) {
      threads.emplace_back([&pool, &got, i] {
        got[i] = pool.TryAcquire();
        if (got[i] != nullptr) memset(got[i], 0xFF, 1000);
      });
    }
    for (std::thread& th : threads) th.join();
    for (void* b : got) {
      ASSERT_NE(b, nullptr);
      seen.insert(b);
      pool.Release(b);
    }
  }
  EXPECT_EQ(pool.carved(), static_cast<uint32_t>(kAtOnce));
  EXPECT_EQ(seen.size(), static_cast<size_t>(kAtOnce));
  EXPECT_EQ(pool.CountFreeForTesting(), pool.carved());
}

// The child of a fork keeps the forking thread's block (and what it held)
// and gets every other block back, whatever the parent's threads held.
TEST(BlockPoolTest, ForkChildFreesEveryBlockButItsOwn) {
  TestPool t(512, 16);
  BlockPool& pool = t.pool;
  void* mine = pool.TryAcquire();
  void* others[3] = {pool.TryAcquire(), pool.TryAcquire(), pool.TryAcquire()};
  void* freed = pool.TryAcquire();
  ASSERT_NE(mine, nullptr);
  ASSERT_NE(freed, nullptr);
  pool.Release(freed);
  memset(mine, 0x42, 512);
  ASSERT_EQ(pool.carved(), 5u);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    pool.ResetAfterFork(mine);
    int code = 0;
    if (pool.CountFreeForTesting() != 4) code |= 1;
    if (static_cast<unsigned char*>(mine)[511] != 0x42) code |= 2;
    std::set<void*> got;
    for (int i = 0; i < 4; ++i) got.insert(pool.TryAcquire());
    const std::set<void*> want = {others[0], others[1], others[2], freed};
    if (got != want) code |= 4;
    if (pool.carved() != 5) code |= 8;
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: free count, 2: own block's contents, 4: blocks handed "
                                       "out, 8: carved (bits)";
  // The parent is untouched.
  EXPECT_EQ(pool.CountFreeForTesting(), 1u);
}

}  // namespace
}  // namespace heaprec::recorder::preload
