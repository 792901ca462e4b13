// RegionReader: records from many rings come out in one seq order; a gap
// holds emission back until it fills, times out, or the process is gone.
#include "recorder/launcher/region_reader.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "recorder/preload/ring_writer.h"
#include "recorder/preload/seq_counter.h"

namespace heaprec::recorder::launcher {
namespace {

// A region file as a traced process would leave it.
class FakeRegion {
 public:
  FakeRegion() : path_(::testing::TempDir() + "/fake." + std::to_string(getpid()) + ".region") {
    const int fd = open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    EXPECT_EQ(ftruncate(fd, kRegionBytes), 0);
    view_.base = static_cast<uint8_t*>(
        mmap(nullptr, kRegionBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    close(fd);
    RegionHeader* h = view_.header();
    h->magic = kRegionMagic;
    h->version = kRegionVersion;
    h->pid = 1234;
    h->stack_arena_used.store(1);
    h->ready.store(1);
  }
  ~FakeRegion() {
    munmap(view_.base, kRegionBytes);
    unlink(path_.c_str());
  }
  void Write(uint32_t slot, uint64_t seq) {
    Ring& ring = view_.rings()[slot];
    ring.state.store(kSlotOwned);
    view_.header()->slots_in_use[slot / 64].fetch_or(uint64_t{1} << (slot % 64));
    const uint64_t head = ring.head.load();
    RawRecord r = {};
    r.seq = seq;
    r.api = 1;  // malloc
    r.address = seq * 16;
    ring.records[head % kRingRecords] = r;
    ring.head.store(head + 1);
  }
  const std::string& path() const { return path_; }
  RegionView view() const { return view_; }

 private:
  std::string path_;
  RegionView view_;
};

struct Collect : RecordSink {
  void OnRecord(uint32_t slot, const RawRecord& r) override {
    seqs.push_back(r.seq);
    slots.push_back(slot);
  }
  std::vector<uint64_t> seqs;
  std::vector<uint32_t> slots;
};

TEST(RegionReaderTest, MergesRingsInSeqOrder) {
  FakeRegion region;
  // Thread rings 3 and 7 and the shared ring 0, interleaved.
  for (uint64_t seq : {1, 2, 5, 6, 9}) region.Write(3, seq);
  for (uint64_t seq : {3, 4, 7, 10}) region.Write(7, seq);
  for (uint64_t seq : {8}) region.Write(0, seq);
  std::string error;
  auto reader = RegionReader::Open(region.path(), &error);
  ASSERT_NE(reader, nullptr) << error;
  EXPECT_EQ(reader->Drain(), 10u);
  Collect out;
  EXPECT_EQ(reader->Emit(out, false, 1), 10u);
  EXPECT_EQ(out.seqs, (std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(out.slots, (std::vector<uint32_t>{3, 3, 7, 7, 3, 3, 7, 0, 3, 7}));
  EXPECT_TRUE(reader->idle());
  // The rings were emptied: the producer may reuse the space.
  EXPECT_EQ(region.view().rings()[3].tail.load(), 5u);
}

TEST(RegionReaderTest, DrainsTheRingsInUseAndFreesRetiredOnesOnceEmpty) {
  FakeRegion region;
  RegionHeader* h = region.view().header();
  Ring* rings = region.view().rings();
  region.Write(5, 1);
  region.Write(70, 2);  // in the second word of slots_in_use
  region.Write(70, 3);
  // Records in a ring whose owner has not yet said it is in use wait.
  rings[200].state.store(kSlotOwned);
  rings[200].records[0].seq = 4;
  rings[200].head.store(1);
  std::string error;
  auto reader = RegionReader::Open(region.path(), &error);
  ASSERT_NE(reader, nullptr) << error;
  EXPECT_EQ(reader->Drain(), 3u);
  h->slots_in_use[200 / 64].fetch_or(uint64_t{1} << (200 % 64));
  EXPECT_EQ(reader->Drain(), 1u);
  Collect out;
  EXPECT_EQ(reader->Emit(out, false, 1), 4u);
  EXPECT_EQ(out.slots, (std::vector<uint32_t>{5, 70, 70, 200}));

  // Ring 70's thread exits with one more record: drained, then freed.
  region.Write(70, 5);
  rings[70].state.store(kSlotRetired);
  EXPECT_EQ(reader->Drain(), 1u);
  EXPECT_EQ(rings[70].state.load(), static_cast<uint32_t>(kSlotFree));
  EXPECT_EQ(h->slots_in_use[1].load() & (uint64_t{1} << (70 % 64)), 0u);
  EXPECT_EQ(rings[5].state.load(), static_cast<uint32_t>(kSlotOwned));
  EXPECT_NE(h->slots_in_use[0].load() & (uint64_t{1} << 5), 0u);
  EXPECT_EQ(reader->Emit(out, false, 2), 1u);
  EXPECT_EQ(out.seqs, (std::vector<uint64_t>{1, 2, 3, 4, 5}));
}

// Drain() until it moves nothing (a thread ring comes a piece at a time).
size_t DrainUntilStill(RegionReader& reader) {
  size_t moved = 0;
  while (const size_t m = reader.Drain()) moved += m;
  return moved;
}

// A gap (seq 1 taken, not yet written) while another thread writes on: its
// ring is copied out until its queue holds kMaxQueued records, then left
// full (its producer would wait) instead of growing the queue without end.
// The gap's record, in another ring, still comes; then everything flows,
// the ring's last lap too (Emit takes its pieces as the queue runs out).
TEST(RegionReaderTest, AGapHoldsBackOnlyUpToKMaxQueuedRecordsPerRing) {
  FakeRegion region;
  std::string error;
  auto reader = RegionReader::Open(region.path(), &error);
  ASSERT_NE(reader, nullptr) << error;
  Collect out;
  uint64_t seq = 2;
  const uint64_t laps = RegionReader::kMaxQueued / kRingRecords;
  for (uint64_t lap = 0; lap < laps; ++lap) {
    for (uint64_t i = 0; i < kRingRecords; ++i) region.Write(3, seq++);
    EXPECT_EQ(reader->Drain(), RegionReader::kDrainPiece);  // a piece at a time
    EXPECT_EQ(DrainUntilStill(*reader), kRingRecords - RegionReader::kDrainPiece);
    EXPECT_EQ(reader->Emit(out, false, 1), 0u);  // waiting for seq 1
  }
  // The queue is full: this lap stays in the ring.
  for (uint64_t i = 0; i < kRingRecords; ++i) region.Write(3, seq++);
  EXPECT_EQ(reader->Drain(), 0u);
  EXPECT_EQ(region.view().rings()[3].tail.load(), laps * kRingRecords);
  // Seq 1 arrives in ring 5 and is drained; what was queued flows out, and
  // the lap left in ring 3 after it.
  region.Write(5, 1);
  EXPECT_EQ(reader->Drain(), 1u);
  EXPECT_EQ(reader->Emit(out, false, 2), (laps + 1) * kRingRecords + 1);
  EXPECT_EQ(region.view().rings()[3].tail.load(), (laps + 1) * kRingRecords);
  EXPECT_EQ(reader->Drain(), 0u);
  EXPECT_TRUE(reader->idle());
  ASSERT_EQ(out.seqs.size(), seq - 1);
  for (size_t i = 0; i < out.seqs.size(); ++i) ASSERT_EQ(out.seqs[i], i + 1);
}

// One thread's long run, seqs 1..kLongRun in ring 3, and a reader of the
// region whose first Drain() took the run's first piece (checked).
constexpr uint64_t kLongRun = 3 * RegionReader::kDrainPiece + 5;
std::unique_ptr<RegionReader> ReaderOfALongRun(FakeRegion& region) {
  std::string error;
  auto reader = RegionReader::Open(region.path(), &error);
  EXPECT_NE(reader, nullptr) << error;
  if (reader == nullptr) return nullptr;
  for (uint64_t seq = 1; seq <= kLongRun; ++seq) region.Write(3, seq);
  EXPECT_EQ(reader->Drain(), RegionReader::kDrainPiece);
  EXPECT_EQ(region.view().rings()[3].tail.load(), RegionReader::kDrainPiece);
  return reader;
}

// One thread's long run: Drain() takes its first piece; Emit hands on the
// whole run, taking each next piece as the queue runs out, in order.
TEST(RegionReaderTest, EmitTakesARingsPiecesAsItsQueueRunsOut) {
  FakeRegion region;
  const auto reader = ReaderOfALongRun(region);
  ASSERT_NE(reader, nullptr);
  const uint64_t n = kLongRun;
  Collect out;
  EXPECT_EQ(reader->Emit(out, false, 1), n);
  EXPECT_EQ(region.view().rings()[3].tail.load(), n);
  EXPECT_TRUE(reader->idle());
  ASSERT_EQ(out.seqs.size(), n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out.seqs[i], i + 1);
}

// With a budget, Emit stops at the end of the run that reaches it, and the
// next call goes on in order; final ignores the budget.
TEST(RegionReaderTest, EmitStopsAtItsBudgetAndGoesOnWhereItStopped) {
  FakeRegion region;
  const auto reader = ReaderOfALongRun(region);
  ASSERT_NE(reader, nullptr);
  const uint64_t n = kLongRun;
  Collect out;
  const size_t budget = RegionReader::kDrainPiece + 1;
  // A piece is one run: the first reaches the budget only with the second.
  EXPECT_EQ(reader->Emit(out, false, 1, budget), 2 * RegionReader::kDrainPiece);
  EXPECT_FALSE(reader->idle());
  EXPECT_EQ(reader->Emit(out, false, 1, 1), RegionReader::kDrainPiece);
  // The rest of the ring, and two records from a second thread's ring.
  region.Write(4, n + 1);
  region.Write(4, n + 2);
  EXPECT_EQ(reader->Drain(), 2u);
  EXPECT_EQ(reader->Emit(out, /*final=*/true, 1, 1), 7u);
  EXPECT_TRUE(reader->idle());
  ASSERT_EQ(out.seqs.size(), n + 2);
  for (size_t i = 0; i < n + 2; ++i) ASSERT_EQ(out.seqs[i], i + 1);
}

TEST(RegionReaderTest, DrainingAllIgnoresTheQueueLimit) {
  FakeRegion region;
  std::string error;
  auto reader = RegionReader::Open(region.path(), &error);
  ASSERT_NE(reader, nullptr) << error;
  uint64_t seq = 2;
  for (uint64_t lap = 0; lap <= RegionReader::kMaxQueued / kRingRecords; ++lap) {
    for (uint64_t i = 0; i < kRingRecords; ++i) region.Write(3, seq++);
    EXPECT_EQ(reader->Drain(/*all=*/true), kRingRecords);
  }
  Collect out;
  EXPECT_EQ(reader->Emit(out, /*final=*/true, 1), seq - 2);  // the gap skipped
}

// The whole ring protocol in one process (TSan: bazel test --config=tsan):
// producer threads write as libheaprec does, through the real writer
// (preload/ring_writer.h: their own rings, one on the shared ring 0, waiting
// while a ring is full) with seqs from the real counter
// (preload/seq_counter.h: the first alone, the switch to shared counting when
// the second claims), while the reader drains and emits concurrently. Every
// seq comes out once, in order, with the address its producer wrote.
TEST(RegionReaderTest, ConcurrentProducersAndTheReader) {
  FakeRegion region;
  std::string error;
  auto reader = RegionReader::Open(region.path(), &error);
  ASSERT_NE(reader, nullptr) << error;
  // Through the reader's mapping: one address for each byte, as TSan needs.
  const RegionView view = reader->view();
  RegionHeader* h = view.header();
  h->seq_mode.store(preload::RegisterMembarrier() ? kSeqSolo : kSeqShared);
  h->solo_seq.store(1);
  h->next_seq.store(1);
  constexpr uint32_t kThreads = 5;                   // the last one on the shared ring
  constexpr uint64_t kPerThread = 3 * kRingRecords;  // each ring wraps
  std::vector<std::thread> producers;
  for (uint32_t t = 1; t <= kThreads; ++t) {
    producers.emplace_back([&, t] {
      if (h->claims.fetch_add(1) > 0) preload::SwitchToSharedSeq(*h);
      preload::RingCursor ring =
          preload::ClaimRing(view, static_cast<int32_t>(t), /*shared_only=*/t == kThreads);
      for (uint64_t i = 0; i < kPerThread; ++i) {
        const uint64_t seq = preload::TakeSeq(*h);
        const bool written = preload::AppendWith(view, getpid(), ring, [&](RawRecord& r) {
          r = {};
          r.seq = seq;
          r.api = 1;  // malloc
          r.address = seq * 16;
        });
        ASSERT_TRUE(written);
      }
      preload::ReleaseRing(view, ring);
    });
  }
  struct Check : RecordSink {
    void OnRecord(uint32_t, const RawRecord& r) override {
      ok = ok && r.seq == count + 1 && r.address == r.seq * 16;
      ++count;
    }
    uint64_t count = 0;
    bool ok = true;
  } out;
  const uint64_t total = kThreads * kPerThread;
  uint64_t now = 1;
  while (out.count < total) {
    reader->Drain();
    reader->Emit(out, false, ++now);
  }
  for (std::thread& p : producers) p.join();
  EXPECT_EQ(out.count, total);
  EXPECT_TRUE(out.ok);
  EXPECT_EQ(reader->Drain(), 0u);
}

// Records "R<seq>" and "P<seq>" in call order.
struct CallLog : RecordSink {
  void OnRecord(uint32_t, const RawRecord& r) override {
    calls.push_back("R" + std::to_string(r.seq));
  }
  void Prefetch(const RawRecord& r) override { calls.push_back("P" + std::to_string(r.seq)); }
  std::vector<std::string> calls;
};

TEST(RegionReaderTest, HintsEachRecordOfARunBeforeItComes) {
  FakeRegion region;
  constexpr uint64_t kRun = 20;  // one ring's records 1..20, then 21 from another
  for (uint64_t seq = 1; seq <= kRun; ++seq) region.Write(3, seq);
  region.Write(5, kRun + 1);
  std::string error;
  auto reader = RegionReader::Open(region.path(), &error);
  ASSERT_NE(reader, nullptr) << error;
  reader->Drain();
  CallLog log;
  EXPECT_EQ(reader->Emit(log, false, 1), kRun + 1);
  std::vector<std::string> want;
  const uint64_t ahead = RegionReader::kPrefetchAhead;
  for (uint64_t seq = 1; seq <= kRun; ++seq) {
    if (seq + ahead <= kRun) want.push_back("P" + std::to_string(seq + ahead));
    want.push_back("R" + std::to_string(seq));
  }
  want.push_back("R" + std::to_string(kRun + 1));  // a run of one: nothing ahead
  EXPECT_EQ(log.calls, want);
}

TEST(RegionReaderTest, AGapWaitsThenTimesOutOrEndsAtExit) {
  FakeRegion region;
  for (uint64_t seq : {1, 2, 4, 5}) region.Write(2, seq);  // 3 is still being written
  std::string error;
  auto reader = RegionReader::Open(region.path(), &error);
  ASSERT_NE(reader, nullptr);
  reader->Drain();
  Collect out;
  EXPECT_EQ(reader->Emit(out, false, 1000), 2u);
  EXPECT_EQ(reader->Emit(out, false, 2000), 0u);  // still waiting
  region.Write(5, 3);                             // the missing record arrives
  reader->Drain();
  EXPECT_EQ(reader->Emit(out, false, 3000), 3u);
  EXPECT_EQ(out.seqs, (std::vector<uint64_t>{1, 2, 3, 4, 5}));

  region.Write(2, 7);  // 6 never comes
  reader->Drain();
  EXPECT_EQ(reader->Emit(out, false, 10'000), 0u);
  EXPECT_EQ(reader->Emit(out, false, 10'000 + 999'999'999), 0u);
  EXPECT_EQ(reader->Emit(out, false, 10'000 + 1'000'000'001), 1u);  // gave up after 1 s
  EXPECT_EQ(reader->skipped_seqs(), 1u);

  region.Write(2, 9);  // 8 never comes, and the process is gone
  reader->Drain();
  EXPECT_EQ(reader->Emit(out, true, 0), 1u);
  EXPECT_EQ(out.seqs.back(), 9u);
}

TEST(RegionReaderTest, ReadsOnlyValidStackEntries) {
  FakeRegion region;
  uint64_t* arena = region.view().stack_arena();
  arena[1] = 0;  // hash
  arena[2] = 2;  // depth
  arena[3] = 0xAAA;
  arena[4] = 0xBBB;
  region.view().header()->stack_arena_used.store(5);
  std::string error;
  auto reader = RegionReader::Open(region.path(), &error);
  ASSERT_NE(reader, nullptr);
  std::vector<uint64_t> frames;
  ASSERT_TRUE(reader->ReadStack(1, &frames));
  EXPECT_EQ(frames, (std::vector<uint64_t>{0xAAA, 0xBBB}));
  EXPECT_FALSE(reader->ReadStack(0, &frames));
  EXPECT_FALSE(reader->ReadStack(4, &frames));  // past what was written
  arena[2] = kMaxStackFrames + 1;               // damaged depth
  EXPECT_FALSE(reader->ReadStack(1, &frames));
}

TEST(RegionReaderTest, NotReadyAndForeignFiles) {
  const std::string path = ::testing::TempDir() + "/short.region";
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  close(fd);
  std::string error;
  EXPECT_EQ(RegionReader::Open(path, &error), nullptr);  // still being created
  EXPECT_TRUE(error.empty());
  unlink(path.c_str());
  EXPECT_EQ(RegionReader::Open(path, &error), nullptr);
  EXPECT_NE(error.find("No such file"), std::string::npos);
}

}  // namespace
}  // namespace heaprec::recorder::launcher
