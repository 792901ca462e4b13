// The seq counter's protocol on a private region (seq_counter.h): a thread
// alone counts with plain stores; a second thread's switch to shared
// counting, while the first keeps counting, loses and repeats no seq.
#include "recorder/preload/seq_counter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "recorder/shared/private_region.h"

namespace heaprec::recorder::preload {
namespace {

void StartSolo(RegionHeader& h, uint64_t first) {
  h.seq_mode.store(kSeqSolo);
  h.solo_seq.store(first);
  h.next_seq.store(first);
}

TEST(SeqCounterTest, AloneCountsFromTheFirstSeq) {
  PrivateRegion region;
  RegionHeader& h = *region.view().header();
  StartSolo(h, 41);
  EXPECT_EQ(TakeSeq(h), 41u);
  EXPECT_EQ(TakeSeq(h), 42u);
  EXPECT_EQ(CurrentSeq(h), 43u);
  EXPECT_EQ(h.seq_mode.load(), kSeqSolo);
}

// Solo counting is only used where the switch can fence (membarrier):
// without it the switch cannot tell the solo thread is idle and skips
// kSeqSkipOnStall seqs.
TEST(SeqCounterTest, SwitchingContinuesTheCount) {
  if (!RegisterMembarrier()) GTEST_SKIP() << "membarrier() unavailable: regions start shared";
  PrivateRegion region;
  RegionHeader& h = *region.view().header();
  StartSolo(h, 1);
  for (int i = 0; i < 10; ++i) TakeSeq(h);
  SwitchToSharedSeq(h);  // no solo thread is inside its busy window
  EXPECT_EQ(h.seq_mode.load(), kSeqShared);
  EXPECT_EQ(TakeSeq(h), 11u);
  EXPECT_EQ(CurrentSeq(h), 12u);
  SwitchToSharedSeq(h);  // a later claimer: nothing changes
  EXPECT_EQ(TakeSeq(h), 12u);
}

// The solo thread counts at full speed while a second thread switches and
// then four threads count at once: every seq is taken exactly once, and none
// is skipped unless the solo thread was held inside its busy window for the
// whole wait (preempted there): then exactly kSeqSkipOnStall, once.
TEST(SeqCounterTest, ASwitchUnderWayLosesAndRepeatsNothing) {
  if (!RegisterMembarrier()) GTEST_SKIP() << "membarrier() unavailable: regions start shared";
  for (int round = 0; round < 20; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    PrivateRegion region;
    RegionHeader& h = *region.view().header();
    StartSolo(h, 1);
    constexpr size_t kPerThread = 20000;
    std::vector<std::vector<uint64_t>> taken(4);
    std::atomic<bool> solo_started{false};
    std::thread solo([&] {
      for (size_t i = 0; i < kPerThread; ++i) {
        taken[0].push_back(TakeSeq(h));
        if (i == 100) solo_started.store(true);
      }
    });
    while (!solo_started.load()) std::this_thread::yield();
    std::vector<std::thread> others;
    for (size_t t = 1; t < taken.size(); ++t) {
      others.emplace_back([&, t] {
        SwitchToSharedSeq(h);  // each claimer calls it; the first switches
        for (size_t i = 0; i < kPerThread; ++i) taken[t].push_back(TakeSeq(h));
      });
    }
    solo.join();
    for (std::thread& t : others) t.join();
    EXPECT_EQ(h.seq_mode.load(), kSeqShared);
    std::vector<uint64_t> all;
    for (const auto& v : taken) {
      EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));  // a thread's seqs only grow
      all.insert(all.end(), v.begin(), v.end());
    }
    std::sort(all.begin(), all.end());
    EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "a seq taken twice";
    EXPECT_EQ(all.front(), 1u);
    size_t skips = 0;
    for (size_t i = 1; i < all.size(); ++i) {
      if (all[i] == all[i - 1] + 1) continue;
      EXPECT_EQ(all[i] - all[i - 1], kSeqSkipOnStall + 1) << "seqs lost after " << all[i - 1];
      ++skips;
    }
    EXPECT_LE(skips, 1u);
  }
}

}  // namespace
}  // namespace heaprec::recorder::preload
