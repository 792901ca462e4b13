// Traces written by earlier versions keep reading: format/testdata holds
// traces written by format 1.0 and 1.2 (1.2 with address_delta_by_kind) of
// the sample of test_traces.h (60 events, a flush every 7, seed 11, no block
// reuse; blocks are numbered from their addresses, as for format 2), and by
// format 2.1 (200 events, a flush every 7, seed 11, with block reuse: frees
// name blocks by global block refs, three threads free each other's blocks),
// and by format 3.1 (the same sample: refs by the thread that made a block;
// no Process.parent_trace, no End.replaced_by_exec), and by heaprec writing
// format 3.3 (a real recording of a C program: 11 mallocs, 10 frees; no RSS
// samples, which 3.4 added), and by format 3.5 (the 200-event sample, and
// heaprec --free-stacks recording tests/leak_demo: per-event thread, seq and
// time columns and a stack entry for every free, which 4.0 dropped).
// Never regenerate them; add a new file for a new version instead.
#include <gtest/gtest.h>

#include <map>

#include "format/records_expect.h"
#include "format/test_traces.h"
#include "format/trace_reader.h"

namespace heaprec::format {
namespace {

// These files' writers counted only alloc events as allocations and only
// free events as frees in their End (reallocs apart): what they wrote.
void CountAsOldWriters(testing::Records* r) {
  uint64_t allocations = 0, frees = 0;
  for (const Event& e : r->events) {
    allocations += e.kind() == EventKind::kAlloc && e.CountsAsAllocation();
    frees += e.kind() == EventKind::kFree && e.CountsAsFree();
  }
  for (EndRecord& end : r->ends) {
    end.allocations = allocations;
    end.frees = frees;
  }
}

void ExpectSample(const char* path, int minor) {
  testing::Records want;
  testing::SampleTraceBytes(60, 7, 11, &want, nullptr, TraceWriter::Options(),
                            /*reuse_blocks=*/false);
  CountAsOldWriters(&want);
  testing::RecordingVisitor v;
  const ReadResult r = ReadTraceFile(path, v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  EXPECT_EQ(r.version.major, 1);
  EXPECT_EQ(r.version.minor, minor);
  testing::ExpectSameRecords(want, v.r);
  size_t made = 0;  // numbered from the addresses
  for (const Event& e : v.r.events) made += e.kind() != EventKind::kFree && e.block != 0;
  EXPECT_GT(made, 10u);
}

TEST(OldTraceTest, Version1Dot0ReadsAsWritten) {
  ExpectSample("format/testdata/trace_v1_0.zst", 0);
}

TEST(OldTraceTest, Version1Dot2ReadsAsWritten) {
  ExpectSample("format/testdata/trace_v1_2.zst", 2);
}

TEST(OldTraceTest, Version2Dot1ReadsAsWritten) {
  testing::Records want;
  testing::SampleTraceBytes(200, 7, 11, &want);
  CountAsOldWriters(&want);
  testing::RecordingVisitor v;
  const ReadResult r = ReadTraceFile("format/testdata/trace_v2_1.zst", v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  EXPECT_EQ(r.version.major, 2);
  EXPECT_EQ(r.version.minor, 1);
  testing::ExpectSameRecords(want, v.r);
  size_t frees = 0, cross = 0;  // the sample frees across threads
  std::map<uint64_t, uint32_t> maker;
  for (const Event& e : v.r.events) {
    if (e.kind() != EventKind::kFree && e.block != 0) maker[e.block] = e.thread;
    const uint64_t released = e.kind() == EventKind::kFree ? e.block : e.old_block;
    if (released != 0) {
      ++frees;
      cross += maker[released] != e.thread;
    }
  }
  EXPECT_GT(frees, 30u);
  EXPECT_GT(cross, 10u);
}

TEST(OldTraceTest, Version3Dot1ReadsAsWritten) {
  testing::Records want;
  testing::SampleTraceBytes(200, 7, 11, &want);
  CountAsOldWriters(&want);
  testing::RecordingVisitor v;
  const ReadResult r = ReadTraceFile("format/testdata/trace_v3_1.zst", v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  EXPECT_EQ(r.version.major, 3);
  EXPECT_EQ(r.version.minor, 1);
  testing::ExpectSameRecords(want, v.r);
  ASSERT_EQ(v.r.processes.size(), 1u);
  EXPECT_EQ(v.r.processes[0].parent_trace, "");
  EXPECT_TRUE(v.r.processes[0].from_start);  // 3.3: absent reads as recorded from the start
  ASSERT_EQ(v.r.ends.size(), 1u);
  EXPECT_FALSE(v.r.ends[0].replaced_by_exec);
  EXPECT_EQ(v.r.ends[0].exit_status, 0);
}

// heaprec's 3.3 trace: complete, every event in order, no RSS samples.
TEST(OldTraceTest, Version3Dot3ReadsWithoutRssSamples) {
  testing::RecordingVisitor v;
  const ReadResult r = ReadTraceFile("format/testdata/trace_v3_3.zst", v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  EXPECT_EQ(r.version.major, 3);
  EXPECT_EQ(r.version.minor, 3);
  EXPECT_TRUE(v.r.rss_samples.empty());
  uint64_t mallocs = 0, frees = 0;
  for (const Event& e : v.r.events) {
    mallocs += e.api == Api::kMalloc;
    frees += e.api == Api::kFree;
  }
  EXPECT_EQ(mallocs, 11u);
  EXPECT_EQ(frees, 10u);
  ASSERT_EQ(v.r.ends.size(), 1u);
  EXPECT_EQ(v.r.ends[0].exit_status, 0);
}

TEST(OldTraceTest, Version3Dot5ReadsAsWritten) {
  testing::Records want;
  testing::SampleTraceBytes(200, 7, 11, &want);
  testing::RecordingVisitor v;
  const ReadResult r = ReadTraceFile("format/testdata/trace_v3_5.zst", v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  EXPECT_EQ(r.version.major, 3);
  EXPECT_EQ(r.version.minor, 5);
  testing::ExpectSameRecords(want, v.r);
}

// heaprec's 3.5 trace with the stacks of frees: one thread, so its chunks
// decode in seq order (the direct path).
TEST(OldTraceTest, Version3Dot5KeepsTheStacksOfFrees) {
  testing::RecordingVisitor v;
  const ReadResult r = ReadTraceFile("format/testdata/trace_v3_5_heaprec.zst", v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  EXPECT_EQ(r.version.major, 3);
  EXPECT_EQ(r.version.minor, 5);
  uint64_t mallocs = 0, frees = 0, frees_with_stacks = 0, last_seq = 0;
  bool in_order = true;
  for (const Event& e : v.r.events) {
    mallocs += e.api == Api::kMalloc;
    frees += e.api == Api::kFree;
    frees_with_stacks += e.api == Api::kFree && e.stack != 0;
    in_order &= e.seq > last_seq;
    last_seq = e.seq;
  }
  EXPECT_TRUE(in_order);
  EXPECT_EQ(mallocs, 110u);
  EXPECT_EQ(frees, 101u);
  EXPECT_EQ(frees_with_stacks, 101u);
  ASSERT_EQ(v.r.ends.size(), 1u);
  EXPECT_EQ(v.r.ends[0].exit_status, 0);
}

}  // namespace
}  // namespace heaprec::format
