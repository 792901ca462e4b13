// ThreadBlock (thread_block.h): a thread gets one block (its state zeroed)
// on its first call and keeps it; threads alive at once have distinct blocks; a released
// block goes to the next thread, wiped; threads started and ended by the
// thousand use as many blocks as were alive at once; a thread that released
// its block, or is in the middle of taking one, gets none; a thread whose
// acquisition failed asks again only every kThreadBlockRetry calls; a fork
// child keeps its thread's block and frees every other; a thread without a
// block borrows the shared one, one thread at a time, and finds its own
// unwinder state there or none, never another thread's; a fork child may
// borrow it whoever had it in the parent. Each test runs its
// threads as std::threads and ends with every block back in the pool.
#include "recorder/preload/thread_block.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <barrier>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "recorder/preload/block_pool.h"

namespace heaprec::recorder::preload {
namespace {

BlockPool& Pool() { return ThreadBlockPoolForTesting(); }

// The block's state (its scratch and spare stack are not wiped).
bool StateIsZero(const ThreadBlock* b) {
  const auto* p = reinterpret_cast<const unsigned char*>(b);
  for (size_t i = 0; i < kThreadBlockStateBytes; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

// The shared block is held for good once taken (by the last test).
uint32_t SharedHeld() {
  ThreadBlock* shared = BorrowSharedBlock();
  if (shared != nullptr) ReturnSharedBlock();
  return shared != nullptr ? 1 : 0;
}

// No block lost: every carved one (but the shared one) is back on the free list.
void ExpectAllBack() { EXPECT_EQ(Pool().CountFreeForTesting(), Pool().carved() - SharedHeld()); }

TEST(ThreadBlockTest, StaticTlsIsSmall) {
  // The pointer and its state: what libheaprec.so's static TLS pays for all this.
  EXPECT_LE(sizeof(ThreadBlockSlot), 32u);
  // A block and the pool's header take 128 KiB exactly.
  EXPECT_EQ(BlockPool(sizeof(ThreadBlock), 1).stride(), 131072u);
  EXPECT_GE(sizeof(ThreadBlock::spare_stack), 32000u);
}

TEST(ThreadBlockTest, OneBlockForTheThreadsLife) {
  std::thread([] {
    EXPECT_EQ(PeekThreadBlock(), nullptr);
    ThreadBlock* b = ThisThreadBlock();
    ASSERT_NE(b, nullptr);
    EXPECT_TRUE(StateIsZero(b));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 64, 0u);
    memset(b, 0x33, sizeof(ThreadBlock));
    for (int i = 0; i < 100; ++i) ASSERT_EQ(ThisThreadBlock(), b);
    EXPECT_EQ(PeekThreadBlock(), b);
    ReleaseThreadBlock();
    // Exiting: no block from here on, however often it asks.
    EXPECT_EQ(PeekThreadBlock(), nullptr);
    for (int i = 0; i < 3 * static_cast<int>(kThreadBlockRetry); ++i) {
      ASSERT_EQ(ThisThreadBlock(), nullptr);
    }
    ReleaseThreadBlock();  // twice is harmless
  }).join();
  ExpectAllBack();
}

TEST(ThreadBlockTest, ThreadsAliveAtOnceHaveDistinctBlocks) {
  constexpr int kThreads = 8;
  std::barrier all_have_one(kThreads);
  ThreadBlock* got[kThreads] = {};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      got[i] = ThisThreadBlock();
      if (got[i] != nullptr) memset(got[i]->stack_cache, i + 1, sizeof(got[i]->stack_cache));
      all_have_one.arrive_and_wait();
      const auto* p = got[i]->stack_cache;
      for (size_t j = 0; j < sizeof(got[i]->stack_cache); ++j) {
        ASSERT_EQ(p[j], i + 1) << "thread " << i << " byte " << j;
      }
      ReleaseThreadBlock();
    });
  }
  for (std::thread& t : threads) t.join();
  const std::set<ThreadBlock*> distinct(got, got + kThreads);
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kThreads));
  EXPECT_EQ(distinct.count(nullptr), 0u);
  ExpectAllBack();
}

TEST(ThreadBlockTest, AReleasedBlockGoesToTheNextThreadWiped) {
  ThreadBlock* first = nullptr;
  std::thread([&] {
    first = ThisThreadBlock();
    ASSERT_NE(first, nullptr);
    memset(first, 0x77, sizeof(ThreadBlock));
    ReleaseThreadBlock();
  }).join();
  ThreadBlock* second = nullptr;
  bool zero = false;
  std::thread([&] {
    second = ThisThreadBlock();
    zero = second != nullptr && StateIsZero(second);
    ReleaseThreadBlock();
  }).join();
  EXPECT_EQ(second, first);  // the free list's top
  EXPECT_TRUE(zero);
  ExpectAllBack();
}

// A program that starts and ends threads by the thousand does not grow.
TEST(ThreadBlockTest, ThreadsByTheThousandUseWhatIsAliveAtOnce) {
  constexpr int kAtOnce = 4;
  constexpr int kBatches = 500;
  const uint32_t carved_before = Pool().carved();
  std::mutex mu;
  std::set<ThreadBlock*> seen;
  for (int batch = 0; batch < kBatches; ++batch) {
    std::vector<std::thread> threads;
    for (int i = 0; i < kAtOnce; ++i) {
      threads.emplace_back([&] {
        ThreadBlock* b = ThisThreadBlock();
        {
          std::lock_guard<std::mutex> lock(mu);
          seen.insert(b);
        }
        ReleaseThreadBlock();
      });
    }
    for (std::thread& t : threads) t.join();
  }
  EXPECT_EQ(seen.count(nullptr), 0u);
  EXPECT_LE(seen.size(), static_cast<size_t>(carved_before) + kAtOnce);
  EXPECT_LE(Pool().carved(), carved_before + kAtOnce);
  ExpectAllBack();
}

// A signal handler that interrupts the thread's own acquisition gets no
// block (it would otherwise take a second one, or the same one twice).
TEST(ThreadBlockTest, ACallDuringTheAcquisitionGetsNone) {
  std::thread([] {
    t_thread_block.state = kBlockAcquiring;
    EXPECT_EQ(ThisThreadBlock(), nullptr);
    t_thread_block.state = kBlockNone;
    EXPECT_NE(ThisThreadBlock(), nullptr);
    ReleaseThreadBlock();
  }).join();
  ExpectAllBack();
}

// After a failure the pool is asked again every kThreadBlockRetry calls,
// not on each (a failing mmap would otherwise cost a system call per call).
TEST(ThreadBlockTest, AFailedThreadRetriesNowAndThen) {
  std::thread([] {
    t_thread_block.state = kBlockFailed;  // as TryAcquire returning nullptr leaves it
    t_thread_block.misses = 0;
    for (uint32_t i = 1; i < kThreadBlockRetry; ++i) ASSERT_EQ(ThisThreadBlock(), nullptr) << i;
    ThreadBlock* b = ThisThreadBlock();
    EXPECT_NE(b, nullptr);
    EXPECT_EQ(ThisThreadBlock(), b);
    ReleaseThreadBlock();
  }).join();
  ExpectAllBack();
}

TEST(ThreadBlockTest, ForkChildKeepsItsBlockAndFreesTheOthers) {
  std::mutex mu;
  std::condition_variable cv;
  bool holding = false, done = false;
  ThreadBlock* held = nullptr;
  // Another thread holds a block across the fork: in the child it is free.
  std::thread other([&] {
    ThreadBlock* b = ThisThreadBlock();
    std::unique_lock<std::mutex> lock(mu);
    held = b;
    holding = true;
    cv.notify_all();
    cv.wait(lock, [&] { return done; });
    lock.unlock();
    ReleaseThreadBlock();
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return holding; });
  }
  ASSERT_NE(held, nullptr);
  int status = -1;
  std::thread forker([&] {
    ThreadBlock* mine = ThisThreadBlock();
    if (mine == nullptr) return;
    memset(mine->unwind, 0x42, sizeof(mine->unwind));
    const pid_t pid = fork();
    if (pid == 0) {
      ResetThreadBlocksAfterFork();
      int code = 0;
      if (PeekThreadBlock() != mine || ThisThreadBlock() != mine) code |= 1;
      if (mine->unwind[sizeof(mine->unwind) - 1] != 0x42) code |= 2;
      const uint32_t free_count = Pool().CountFreeForTesting();
      if (free_count != Pool().carved() - 1 - SharedHeld()) code |= 4;
      // The other thread's block is among the free ones.
      std::set<void*> free_blocks;
      for (uint32_t i = 0; i < free_count; ++i) free_blocks.insert(Pool().TryAcquire());
      if (free_blocks.count(held) != 1 || free_blocks.count(mine) != 0) code |= 8;
      _exit(code);
    }
    if (pid > 0) waitpid(pid, &status, 0);
    ReleaseThreadBlock();
  });
  forker.join();
  {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
  }
  cv.notify_all();
  other.join();
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "1: own block, 2: its contents, 4: free count, 8: the other thread's block (bits)";
  ExpectAllBack();
}

TEST(ThreadBlockTest, TheSharedBlockGoesToOneThreadAtATime) {
  size_t bytes = 0;
  ASSERT_NE(ThreadBlocksMemory(&bytes), nullptr);
  ThreadBlock* shared = nullptr;
  std::thread([&] {
    ThreadBlock* own = ThisThreadBlock();  // one thread's block is not the shared one
    ReleaseThreadBlock();
    ASSERT_EQ(PeekThreadBlock(), nullptr);  // an exiting thread: none of its own
    shared = BorrowSharedBlock();
    ASSERT_NE(shared, nullptr);
    EXPECT_NE(shared, own);
    memset(shared->unwind, 0x5a, sizeof(shared->unwind));
    std::thread([] { EXPECT_EQ(BorrowSharedBlock(), nullptr); }).join();  // held
    ReturnSharedBlock();
    // The same thread again: its state is still there.
    ASSERT_EQ(BorrowSharedBlock(), shared);
    EXPECT_EQ(shared->unwind[sizeof(shared->unwind) - 1], 0x5a);
    ReturnSharedBlock();
  }).join();
  std::thread([&] {
    // Another thread: the state is wiped for it.
    ASSERT_EQ(BorrowSharedBlock(), shared);
    for (unsigned char c : shared->unwind) ASSERT_EQ(c, 0);
    ReturnSharedBlock();
  }).join();
  ExpectAllBack();
}

// While the shared block is borrowed, a thread without a block borrows a
// free one of the pool's (zeroed), one at a time, and gives it back.
TEST(ThreadBlockTest, WhileTheSharedBlockIsOutAPoolBlockIsBorrowed) {
  size_t bytes = 0;
  ASSERT_NE(ThreadBlocksMemory(&bytes), nullptr);
  std::thread([] {
    ThreadBlock* shared = BorrowThreadBlock();  // the shared one first
    ASSERT_NE(shared, nullptr);
    std::thread([shared] {
      ThreadBlock* own = ThisThreadBlock();
      memset(own->unwind, 0x77, sizeof(own->unwind));
      ReleaseThreadBlock();  // as an exiting thread: none of its own
      ThreadBlock* b = BorrowThreadBlock();
      ASSERT_NE(b, nullptr);
      EXPECT_NE(b, shared);
      EXPECT_EQ(b, own);  // the free list's top
      EXPECT_TRUE(StateIsZero(b));
      EXPECT_EQ(BorrowThreadBlock(), nullptr);  // nested: one at a time
      ReturnThreadBlock(b);
    }).join();
    ReturnThreadBlock(shared);
  }).join();
  ExpectAllBack();
}

TEST(ThreadBlockTest, ForkChildMayBorrowTheSharedBlockAnotherThreadHeld) {
  size_t bytes = 0;
  ASSERT_NE(ThreadBlocksMemory(&bytes), nullptr);
  std::atomic<bool> held{false}, done{false};
  std::thread other([&] {
    if (BorrowSharedBlock() == nullptr) return;
    held = true;
    while (!done) std::this_thread::yield();
    ReturnSharedBlock();
  });
  while (!held) std::this_thread::yield();
  int status = -1;
  std::thread([&] {
    EXPECT_EQ(BorrowSharedBlock(), nullptr);  // the other thread has it
    const pid_t pid = fork();
    if (pid == 0) {
      ResetThreadBlocksAfterFork();
      int code = 0;
      ThreadBlock* shared = BorrowSharedBlock();
      if (shared == nullptr) code |= 1;
      // Not handed out as a thread's block either.
      std::set<void*> free_blocks;
      for (uint32_t i = Pool().CountFreeForTesting(); i > 0; --i) {
        free_blocks.insert(Pool().TryAcquire());
      }
      if (shared != nullptr && free_blocks.count(shared) != 0) code |= 2;
      _exit(code);
    }
    if (pid > 0) waitpid(pid, &status, 0);
  }).join();
  done = true;
  other.join();
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: not borrowable, 2: also on the free list (bits)";
  ExpectAllBack();
}

}  // namespace
}  // namespace heaprec::recorder::preload
