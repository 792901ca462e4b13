// The producer's side of the ring protocol on a private region
// (ring_writer.h, recorder/shared/ring.h): claiming and releasing slots,
// appending across laps while a consumer reads with ring.h's consumer
// steps, waiting on a full ring until the consumer makes room, giving up
// when the launcher is gone, and the shared ring under its lock.
#include "recorder/preload/ring_writer.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "recorder/shared/private_region.h"
#include "recorder/shared/ring_slots.h"

namespace heaprec::recorder::preload {
namespace {

bool AppendSeq(const RegionView& region, RingCursor& cursor, uint64_t seq, uint32_t who = 0) {
  return AppendWith(region, getpid(), cursor, [&](RawRecord& r) {
    r = {};
    r.seq = seq;
    r.address = who;
  });
}

// Reads every record of ring until stop is set and the ring is empty, as the
// launcher does (ReadableRecords, copy, Consumed).
std::vector<RawRecord> ConsumeUntil(Ring& ring, const std::atomic<bool>& stop) {
  std::vector<RawRecord> out;
  for (;;) {
    const bool last = stop.load();
    const Readable r = ReadableRecords(ring);
    for (uint64_t i = r.tail; i != r.head; ++i) out.push_back(RecordAt(ring, i));
    if (r.count() != 0) Consumed(ring, r.head);
    if (last && r.count() == 0) return out;
    std::this_thread::yield();
  }
}

TEST(RingWriterTest, ClaimsOwnSlotsAndReleasesThem) {
  PrivateRegion region;
  const RegionView& v = region.view();
  RingCursor a = ClaimRing(v, 1000, false);
  RingCursor b = ClaimRing(v, 1000, false);  // same start slot: the next free one
  ASSERT_NE(a.slot, 0u);
  ASSERT_NE(b.slot, 0u);
  EXPECT_NE(a.slot, b.slot);
  EXPECT_EQ(a.ring, &v.rings()[a.slot]);
  EXPECT_EQ(v.header()->rings_owned.load(), 2u);
  EXPECT_NE(v.header()->slots_in_use[a.slot / 64].load() & (uint64_t{1} << (a.slot % 64)), 0u);
  EXPECT_EQ(v.rings()[a.slot].state.load(), kSlotOwned);
  EXPECT_EQ(v.rings()[a.slot].tid.load(), 1000);

  RingCursor shared = ClaimRing(v, 1001, /*shared_only=*/true);
  EXPECT_EQ(shared.slot, 0u);
  EXPECT_EQ(shared.ring, &v.rings()[0]);

  const uint32_t slot = a.slot;
  ReleaseRing(v, a);
  EXPECT_EQ(a.ring, nullptr);
  EXPECT_EQ(v.rings()[slot].state.load(), kSlotRetired);
  EXPECT_EQ(v.header()->rings_owned.load(), 1u);
  // The consumer frees it once it has read everything; a write since keeps it.
  FreeSlotIfDrained(v, slot, v.rings()[slot].head.load() + 1);
  EXPECT_EQ(v.rings()[slot].state.load(), kSlotRetired);
  FreeSlotIfDrained(v, slot, v.rings()[slot].head.load());
  EXPECT_EQ(v.rings()[slot].state.load(), kSlotFree);
  EXPECT_EQ(v.header()->slots_in_use[slot / 64].load() & (uint64_t{1} << (slot % 64)), 0u);
}

// Three laps through one ring while the consumer reads: every record once,
// in order, none overwritten before it was read.
TEST(RingWriterTest, AppendsAcrossLapsWhileTheConsumerReads) {
  PrivateRegion region;
  const RegionView& v = region.view();
  RingCursor c = ClaimRing(v, 7, false);
  constexpr uint64_t kRecords = 3 * kRingRecords + 123;
  std::atomic<bool> stop{false};
  std::vector<RawRecord> read;
  std::thread consumer([&] { read = ConsumeUntil(*c.ring, stop); });
  for (uint64_t seq = 1; seq <= kRecords; ++seq) ASSERT_TRUE(AppendSeq(v, c, seq));
  stop.store(true);
  consumer.join();
  ASSERT_EQ(read.size(), kRecords);
  for (uint64_t i = 0; i < kRecords; ++i) ASSERT_EQ(read[i].seq, i + 1) << "record " << i;
}

// A full ring: the producer waits (spins, then sleeps on the futex) until
// the consumer, which starts late, makes room; nothing is dropped.
TEST(RingWriterTest, AFullRingWaitsForTheConsumer) {
  PrivateRegion region;
  const RegionView& v = region.view();
  RingCursor c = ClaimRing(v, 7, false);
  for (uint64_t seq = 1; seq <= kRingRecords; ++seq) ASSERT_TRUE(AppendSeq(v, c, seq));
  std::atomic<bool> stop{false}, late_started{false};
  std::vector<RawRecord> read;
  std::thread consumer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    late_started.store(true);
    read = ConsumeUntil(*c.ring, stop);
  });
  ASSERT_TRUE(AppendSeq(v, c, kRingRecords + 1));  // waits for the consumer
  EXPECT_TRUE(late_started.load());
  stop.store(true);
  consumer.join();
  ASSERT_EQ(read.size(), kRingRecords + 1);
  EXPECT_EQ(read.back().seq, kRingRecords + 1);
  EXPECT_EQ(c.ring->waiting.load(), 0u);  // the consumer answered the announcement
}

// ReserveRoom waits for room for n records before any is written (so that
// no seq is held meanwhile), and the appends it made room for do not wait.
TEST(RingWriterTest, ReservesRoomBeforeTheRecords) {
  PrivateRegion region;
  const RegionView& v = region.view();
  RingCursor c = ClaimRing(v, 7, false);
  for (uint64_t seq = 1; seq < kRingRecords; ++seq) ASSERT_TRUE(AppendSeq(v, c, seq));
  EXPECT_TRUE(ReserveRoom(v, getpid(), c, 1));  // one slot left: no wait
  std::atomic<bool> stop{false}, late_started{false};
  std::vector<RawRecord> read;
  std::thread consumer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    late_started.store(true);
    read = ConsumeUntil(*c.ring, stop);
  });
  ASSERT_TRUE(ReserveRoom(v, getpid(), c, 2));  // waits for the consumer
  EXPECT_TRUE(late_started.load());
  const uint64_t head = c.ring->head.load();
  EXPECT_LE(head + 2, c.limit);  // both appends have room without asking
  ASSERT_TRUE(AppendSeq(v, c, kRingRecords));
  ASSERT_TRUE(AppendSeq(v, c, kRingRecords + 1));
  stop.store(true);
  consumer.join();
  ASSERT_EQ(read.size(), kRingRecords + 1);
  for (uint64_t i = 0; i < read.size(); ++i) ASSERT_EQ(read[i].seq, i + 1);
}

// With other rings owned, a producer stops at kRingSharedCapacity unread.
TEST(RingWriterTest, SharesTheRoomWhenOthersOwnRings) {
  PrivateRegion region;
  const RegionView& v = region.view();
  RingCursor mine = ClaimRing(v, 7, false);
  RingCursor other = ClaimRing(v, 8, false);
  (void)other;
  v.header()->launcher_gone.store(1);  // so that a full ring fails instead of waiting
  uint64_t written = 0;
  while (AppendSeq(v, mine, written + 1)) ++written;
  EXPECT_EQ(written, kRingSharedCapacity);
}

TEST(RingWriterTest, GivesUpWhenTheLauncherIsGone) {
  PrivateRegion region;
  const RegionView& v = region.view();
  RingCursor c = ClaimRing(v, 7, false);
  const pid_t dead = fork();
  if (dead == 0) _exit(0);
  ASSERT_GT(dead, 0);
  ASSERT_EQ(waitpid(dead, nullptr, 0), dead);  // reaped: kill(dead, 0) fails with ESRCH
  uint64_t written = 0;
  while (AppendWith(v, dead, c, [&](RawRecord& r) {
    r = {};
    r.seq = written + 1;
  }))
    ++written;
  EXPECT_EQ(written, kRingRecords);  // alone: the whole ring, then no room and no launcher
  EXPECT_EQ(v.header()->launcher_gone.load(), 1u);
  EXPECT_FALSE(AppendSeq(v, c, written + 1));  // from now on at once
}

// Threads without a ring of their own write to the shared ring under its
// lock: every record arrives, each thread's in its order, and each counts.
TEST(RingWriterTest, TheSharedRingTakesEveryThreadsRecords) {
  PrivateRegion region;
  const RegionView& v = region.view();
  constexpr uint32_t kThreads = 4;
  constexpr uint64_t kPerThread = kRingRecords;  // more than the ring holds
  std::atomic<bool> stop{false};
  std::vector<RawRecord> read;
  std::thread consumer([&] { read = ConsumeUntil(v.rings()[0], stop); });
  std::vector<std::thread> producers;
  for (uint32_t t = 1; t <= kThreads; ++t) {
    producers.emplace_back([&, t] {
      RingCursor c = ClaimRing(v, static_cast<int32_t>(t), /*shared_only=*/true);
      for (uint64_t i = 1; i <= kPerThread; ++i) AppendSeq(v, c, i, t);
    });
  }
  for (std::thread& p : producers) p.join();
  stop.store(true);
  consumer.join();
  ASSERT_EQ(read.size(), kThreads * kPerThread);
  std::vector<uint64_t> last(kThreads + 1, 0);
  for (const RawRecord& r : read) {
    ASSERT_EQ(r.seq, last[r.address] + 1) << "thread " << r.address;
    last[r.address] = r.seq;
  }
  EXPECT_EQ(v.header()->counters.shared_ring_records.load(), kThreads * kPerThread);
  EXPECT_EQ(v.rings()[0].lock.load(), 0u);
}

}  // namespace
}  // namespace heaprec::recorder::preload
