// The set of live sampled addresses: what goes in comes out once, buckets
// that overflow spill to the next level, a full set says so, and threads
// inserting and taking at once (also handing blocks to each other, as a
// program frees on another thread) lose nothing (run under TSan too).
#include "recorder/preload/sampled_set.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace heaprec::recorder::preload {
namespace {

class SampledSetTest : public testing::Test {
 protected:
  void SetUp() override {
    memory_ = mmap(nullptr, SampledSet::BytesNeeded(), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    ASSERT_NE(memory_, MAP_FAILED);
    set_.Attach(memory_);
  }
  void TearDown() override { munmap(memory_, SampledSet::BytesNeeded()); }

  // Heap-like addresses: 16-byte aligned, spread over a few GiB.
  static uintptr_t Address(uint64_t i) {
    uint64_t x = i * 0x9e3779b97f4a7c15ULL;
    x ^= x >> 31;
    return 0x7f0000000000ULL + ((x & 0xffffffffULL) << 4) + 16;
  }

  void* memory_ = nullptr;
  SampledSet set_;
};

TEST_F(SampledSetTest, InsertThenTakeOnce) {
  EXPECT_FALSE(set_.Contains(0x1000));
  EXPECT_FALSE(set_.Take(0x1000));
  EXPECT_TRUE(set_.Insert(0x1000));
  EXPECT_TRUE(set_.Insert(0x1010));
  EXPECT_TRUE(set_.Contains(0x1000));
  EXPECT_TRUE(set_.Take(0x1000));
  EXPECT_FALSE(set_.Take(0x1000));
  EXPECT_FALSE(set_.Contains(0x1000));
  EXPECT_TRUE(set_.Contains(0x1010));
  EXPECT_EQ(set_.levels_in_use(), 1);
}

TEST_F(SampledSetTest, ManyAddressesSpillToLaterLevels) {
  // 200000 addresses: six per first-level bucket on average, so many of its
  // buckets overflow.
  constexpr uint64_t kN = 200000;
  for (uint64_t i = 0; i < kN; ++i) ASSERT_TRUE(set_.Insert(Address(i))) << i;
  EXPECT_GT(set_.levels_in_use(), 1);
  for (uint64_t i = 0; i < kN; ++i) ASSERT_TRUE(set_.Contains(Address(i))) << i;
  EXPECT_FALSE(set_.Contains(Address(kN)));
  for (uint64_t i = 0; i < kN; i += 2) ASSERT_TRUE(set_.Take(Address(i))) << i;
  for (uint64_t i = 0; i < kN; ++i) ASSERT_EQ(set_.Contains(Address(i)), i % 2 == 1) << i;
  // Freed slots are reused.
  for (uint64_t i = 0; i < kN; i += 2) ASSERT_TRUE(set_.Insert(Address(i))) << i;
  for (uint64_t i = 0; i < kN; ++i) ASSERT_TRUE(set_.Take(Address(i))) << i;
  for (uint64_t i = 0; i < kN; ++i) ASSERT_FALSE(set_.Contains(Address(i))) << i;
}

TEST_F(SampledSetTest, AFullSetRefusesAndKeepsTheRest) {
  // Addresses that all hash to one bucket at every level cannot all fit:
  // beyond 8 per level, Insert says no, and what went in stays findable.
  std::vector<uintptr_t> in;
  uint64_t refused = 0;
  for (uint64_t i = 0; i < 5000000 && refused == 0; ++i) {
    if (set_.Insert(Address(i))) {
      in.push_back(Address(i));
    } else {
      ++refused;
    }
  }
  ASSERT_EQ(refused, 1u);  // a full bucket at every level, well before all slots are used
  EXPECT_EQ(set_.levels_in_use(), SampledSet::kLevels);
  for (uintptr_t a : in) ASSERT_TRUE(set_.Contains(a));
}

TEST_F(SampledSetTest, ThreadsInsertAndTakeConcurrently) {
  constexpr int kThreads = 4;
  constexpr uint64_t kPerThread = 20000;
  std::vector<std::thread> threads;
  std::atomic<uint64_t> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round) {
        for (uint64_t i = 0; i < kPerThread; ++i) {
          if (!set_.Insert(Address(t * kPerThread + i))) failures.fetch_add(1);
        }
        for (uint64_t i = 0; i < kPerThread; ++i) {
          if (!set_.Take(Address(t * kPerThread + i))) failures.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0u);
  for (uint64_t i = 0; i < kThreads * kPerThread; ++i) ASSERT_FALSE(set_.Contains(Address(i)));
}

TEST_F(SampledSetTest, BlocksFreedOnAnotherThread) {
  // A producer inserts and hands each address over (release/acquire, as a
  // program's queue would); the consumer takes it.
  constexpr uint64_t kN = 50000;
  std::vector<std::atomic<uint64_t>> handed(kN);
  std::atomic<uint64_t> missing{0};
  std::thread consumer([&] {
    for (uint64_t i = 0; i < kN; ++i) {
      uint64_t a;
      while ((a = handed[i].load(std::memory_order_acquire)) == 0) {
      }
      if (!set_.Take(a)) missing.fetch_add(1);
    }
  });
  for (uint64_t i = 0; i < kN; ++i) {
    ASSERT_TRUE(set_.Insert(Address(i)));
    handed[i].store(Address(i), std::memory_order_release);
  }
  consumer.join();
  EXPECT_EQ(missing.load(), 0u);
}

// The filter in front of the slots: never false for an address in the set,
// false for nearly every other one while the set holds few, empty again once
// they are taken; ClearFilter (a new recording) empties it.
TEST_F(SampledSetTest, FilterNeverHidesAnAddressAndPassesFewOthers) {
  for (uint64_t i = 0; i < 200; ++i) ASSERT_TRUE(set_.Insert(Address(i)));
  for (uint64_t i = 0; i < 200; ++i) EXPECT_TRUE(set_.MayContain(Address(i))) << i;
  int passed = 0;
  for (uint64_t i = 1000; i < 101000; ++i) passed += set_.MayContain(Address(i));
  EXPECT_LT(passed, 100000 * 5 / 100) << "200 addresses in 8192 counters: ~2.4% pass";
  for (uint64_t i = 0; i < 200; ++i) EXPECT_TRUE(set_.Take(Address(i)));
  for (uint64_t i = 0; i < 200; ++i) EXPECT_FALSE(set_.MayContain(Address(i))) << i;
  ASSERT_TRUE(set_.Insert(Address(7)));
  set_.ClearFilter();
  EXPECT_FALSE(set_.MayContain(Address(7)));
}

}  // namespace
}  // namespace heaprec::recorder::preload
