// TraceCompiler: ops per kind of call, realloc chains, slots, dropped and
// skipped calls, cross-thread waits, and the peak live bytes against the
// analyzer's.
#include "replay/trace_compiler.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "format/test_traces.h"
#include "replay/replay_test_util.h"

namespace heaprec::replay {
namespace {

using format::Api;
using testing::Alloc;
using testing::CompileBytes;
using testing::Free;
using testing::Realloc;
using testing::TraceBytes;

uint8_t A(Api api) { return static_cast<uint8_t>(api); }

TEST(TraceCompiler, PeakLiveBytesMatchTheAnalyzerOnSampleTraces) {
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    const std::string bytes = format::testing::SampleTraceBytes(3000, 500, seed, nullptr);
    const testing::Compiled c = CompileBytes(bytes);
    ASSERT_GT(c.analyzer_peak, 0u) << "seed " << seed;
    EXPECT_EQ(c.trace.stats.peak_live_bytes, c.analyzer_peak) << "seed " << seed;
    EXPECT_EQ(c.trace.stats.unknown_frees, c.analyzer_unknown_frees) << "seed " << seed;
    EXPECT_GT(c.trace.stats.threads, 1u);
    // --plot's curve keeps the peak and ends at the last op.
    uint64_t curve_peak = 0;
    for (const CurvePoint& p : c.trace.live_curve) curve_peak = std::max(curve_peak, p.bytes);
    EXPECT_EQ(curve_peak, c.analyzer_peak) << "seed " << seed;
    ASSERT_FALSE(c.trace.live_curve.empty());
    EXPECT_LE(c.trace.live_curve.size(), 2 * kCurvePoints + 2);
    EXPECT_EQ(c.trace.live_curve.back().ops, c.trace.stats.ops);
  }
}

// SampleProcess's pid is 4242: the thread with that tid is the main thread,
// whichever thread made the first event.
TEST(TraceCompiler, MainThreadIsTheThreadWhoseTidIsThePid) {
  const std::vector<format::Event> ev = {Alloc(1, 0x1000, 10), Alloc(2, 0x2000, 20),
                                         Alloc(3, 0x3000, 30)};
  const std::vector<format::ThreadInfo> threads = {
      {1, 4300, "worker", 0}, {2, 4242, "main", 0}, {3, 4301, "other", 0}};
  const testing::Compiled c = CompileBytes(TraceBytes(ev, threads));
  ASSERT_EQ(c.trace.thread_ids, (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(c.trace.main_thread, 1u);
  EXPECT_EQ(c.trace.stats.main_thread_ops, 1u);
  // No thread records: the first event's thread.
  EXPECT_EQ(CompileBytes(TraceBytes(ev)).trace.main_thread, 0u);
  // The main thread named but silent: no replay thread is the main one.
  const std::vector<format::ThreadInfo> silent_main = {
      {1, 4300, "worker", 0}, {2, 4301, "other", 0}, {4, 4242, "main", 0}};
  const testing::Compiled silent = CompileBytes(TraceBytes(ev, silent_main));
  EXPECT_EQ(silent.trace.main_thread, kNoMainThread);
  EXPECT_EQ(silent.trace.stats.main_thread_ops, 0u);
  // Nothing to replay.
  EXPECT_EQ(CompileBytes(TraceBytes({})).trace.main_thread, kNoMainThread);
}

TEST(TraceCompiler, ReallocChainKeepsOneSlotAndEveryForm) {
  std::vector<format::Event> ev;
  ev.push_back(Alloc(1, 0x1000, 10));
  ev.push_back(Realloc(1, 0x1000, 0x1000, 20));  // in place
  testing::MovedRealloc(&ev, 1, 0x1000, 0x2000, 40);
  ev.push_back(Realloc(1, 0x2000, 0, 0));  // realloc(p, 0)
  ev.push_back(Realloc(1, 0, 0x3000, 8));  // realloc(NULL, 8), another call site
  ev.back().stack = 2;
  ev.push_back(Realloc(1, 0x3000, 0, 100));  // failed: block stays
  ev.push_back(Free(1, 0x3000));
  const testing::Compiled c = CompileBytes(TraceBytes(ev));
  ASSERT_EQ(c.trace.ops.size(), 1u);
  const std::vector<Op>& ops = c.trace.ops[0];
  ASSERT_EQ(ops.size(), 6u);
  EXPECT_EQ(ops[0].api, A(Api::kMalloc));
  EXPECT_EQ(ops[0].size, 10u);
  EXPECT_EQ(ops[1].api, A(Api::kRealloc));
  EXPECT_EQ(ops[1].flags, 0);
  EXPECT_EQ(ops[1].size, 20u);
  EXPECT_EQ(ops[2].flags, kMoved);
  EXPECT_EQ(ops[2].size, 40u);
  EXPECT_EQ(ops[3].flags, kToZero);
  EXPECT_EQ(ops[4].flags, kFromNull);
  EXPECT_EQ(ops[4].size, 8u);
  EXPECT_EQ(ops[5].api, A(Api::kFree));
  for (const Op& op : ops) EXPECT_EQ(op.slot, 0u);  // one block at a time: one slot
  EXPECT_EQ(c.trace.stats.slots, 1u);
  EXPECT_EQ(c.trace.stats.moved_reallocs, 1u);
  EXPECT_EQ(c.trace.stats.failed_calls, 1u);
  EXPECT_EQ(c.trace.stats.peak_live_bytes, 40u);
  EXPECT_EQ(c.analyzer_peak, 40u);
}

TEST(TraceCompiler, SizedAndAlignedCallsKeepTheirKindSizeAndAlignment) {
  std::vector<format::Event> ev;
  ev.push_back(Alloc(1, 0x1000, 24, Api::kNew));
  ev.push_back(Alloc(1, 0x2000, 100, Api::kNewArrayAligned, 256));
  ev.push_back(Alloc(1, 0x3000, 64, Api::kPosixMemalign, 64));
  ev.push_back(Free(1, 0x1000, Api::kDeleteSized, 24));
  ev.push_back(Free(1, 0x2000, Api::kDeleteArraySizedAligned, 100, 256));
  ev.push_back(Free(1, 0x3000));
  const testing::Compiled c = CompileBytes(TraceBytes(ev));
  const std::vector<Op>& ops = c.trace.ops[0];
  ASSERT_EQ(ops.size(), 6u);
  EXPECT_EQ(ops[1].api, A(Api::kNewArrayAligned));
  EXPECT_EQ(ops[1].align_log2, 8);
  EXPECT_EQ(ops[2].align_log2, 6);
  EXPECT_EQ(ops[3].api, A(Api::kDeleteSized));
  EXPECT_EQ(ops[3].size, 24u);
  EXPECT_EQ(ops[3].slot, ops[0].slot);
  EXPECT_EQ(ops[4].api, A(Api::kDeleteArraySizedAligned));
  EXPECT_EQ(ops[4].size, 100u);
  EXPECT_EQ(ops[4].align_log2, 8);
  EXPECT_EQ(c.trace.stats.slots, 3u);
  EXPECT_EQ(c.trace.stats.peak_live_bytes, 188u);
}

TEST(TraceCompiler, DropsUnknownFreesAndSkipsFailedCalls) {
  std::vector<format::Event> ev;
  ev.push_back(Free(1, 0x9000));        // made before recording
  ev.push_back(Alloc(1, 0, 1u << 30));  // failed malloc
  ev.push_back(Alloc(1, 0x1000, 16));
  ev.push_back(Free(1, 0x1000));
  ev.push_back(Free(1, 0x1000));                 // double free
  ev.push_back(Realloc(1, 0x8000, 0x2000, 32));  // realloc of an unknown block
  const testing::Compiled c = CompileBytes(TraceBytes(ev));
  const std::vector<Op>& ops = c.trace.ops[0];
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[2].flags, kFromNull | kUnknownOld);
  EXPECT_EQ(c.trace.stats.unknown_frees, 3u);
  EXPECT_EQ(c.analyzer_unknown_frees, 3u);
  EXPECT_EQ(c.trace.stats.failed_calls, 1u);
  EXPECT_EQ(c.trace.stats.unknown_reallocs, 1u);
}

TEST(TraceCompiler, CrossThreadFreeWaitsForTheAllocatingOp) {
  std::vector<format::Event> ev;
  ev.push_back(Alloc(7, 0x1000, 16));                 // thread 7: op 0
  ev.push_back(Alloc(7, 0x2000, 16));                 // thread 7: op 1
  ev.push_back(Free(9, 0x2000));                      // thread 9 frees 7's op 1
  testing::MovedRealloc(&ev, 9, 0x1000, 0x3000, 64);  // 9 reallocs 7's op 0
  ev.push_back(Free(7, 0x3000));                      // 7 frees what 9 made
  const testing::Compiled c = CompileBytes(TraceBytes(ev));
  ASSERT_EQ(c.trace.ops.size(), 2u);
  EXPECT_EQ(c.trace.thread_ids[0], 7u);
  const std::vector<Op>& t7 = c.trace.ops[0];
  const std::vector<Op>& t9 = c.trace.ops[1];
  ASSERT_EQ(t7.size(), 3u);
  ASSERT_EQ(t9.size(), 2u);
  // 9's realloc of 7's op 0 needs no wait of its own: 9 already waited for
  // 7's two ops. So only 7's op 1 is waited for.
  EXPECT_FALSE(t7[0].flags & kPublish);
  EXPECT_TRUE(t7[1].flags & kPublish);
  EXPECT_TRUE(t9[0].flags & kWaits);
  EXPECT_FALSE(t9[1].flags & kWaits);
  EXPECT_TRUE(t9[1].flags & kPublish);
  EXPECT_TRUE(t7[2].flags & kWaits);
  ASSERT_EQ(c.trace.waits[1].size(), 1u);
  EXPECT_EQ(c.trace.waits[1][0].thread, 0u);
  EXPECT_EQ(c.trace.waits[1][0].ops_done, 2u);
  ASSERT_EQ(c.trace.waits[0].size(), 1u);
  EXPECT_EQ(c.trace.waits[0][0].thread, 1u);
  EXPECT_EQ(c.trace.waits[0][0].ops_done, 2u);
  EXPECT_EQ(c.trace.stats.cross_thread_waits, 3u);
  EXPECT_EQ(c.trace.stats.wait_points, 2u);
}

// Thread 2 frees a batch of thread 1's blocks: one wait, for the last of
// them. A wait is never raised past what thread 1 had made at that point of
// the recording: block 0x20 is made after 2's first free, so 2 waits again.
TEST(TraceCompiler, MergesWaitsOnABatchButNeverPastTheRecordedOrder) {
  std::vector<format::Event> ev;
  for (uint64_t b = 1; b <= 10; ++b) ev.push_back(Alloc(1, 0x1000 * b, 16));  // 1: ops 0-9
  for (uint64_t b = 1; b <= 10; ++b) ev.push_back(Free(2, 0x1000 * b));       // 2: ops 0-9
  ev.push_back(Alloc(1, 0x20, 8));                                            // 1: op 10
  ev.push_back(Free(2, 0x20));                                                // 2: op 10
  const testing::Compiled c = CompileBytes(TraceBytes(ev));
  ASSERT_EQ(c.trace.ops.size(), 2u);
  const std::vector<Op>& t1 = c.trace.ops[0];
  const std::vector<Op>& t2 = c.trace.ops[1];
  EXPECT_EQ(c.trace.stats.cross_thread_waits, 11u);
  EXPECT_EQ(c.trace.stats.wait_points, 2u);
  ASSERT_EQ(c.trace.waits[1].size(), 2u);
  EXPECT_EQ(c.trace.waits[1][0].ops_done, 10u);
  EXPECT_EQ(c.trace.waits[1][1].ops_done, 11u);
  for (size_t i = 0; i < t2.size(); ++i) {
    EXPECT_EQ((t2[i].flags & kWaits) != 0, i == 0 || i == 10) << "op " << i;
  }
  for (size_t i = 0; i < t1.size(); ++i) {
    EXPECT_EQ((t1[i].flags & kPublish) != 0, i == 9 || i == 10) << "op " << i;
  }
}

}  // namespace
}  // namespace heaprec::replay
