// Traces written by earlier versions keep reading: format/testdata holds
// traces written by format 1.0 and 1.2 (1.2 with address_delta_by_kind) of
// the sample of test_traces.h (60 events, a flush every 7, seed 11, no block
// reuse). Never regenerate them; add a new file for a new version instead.
// Blocks are numbered from their addresses, as for format 2.
#include <gtest/gtest.h>

#include "format/test_traces.h"
#include "format/trace_reader.h"

namespace heaprec::format {
namespace {

void ExpectSample(const char* path, int minor) {
  testing::Records want;
  testing::SampleTraceBytes(60, 7, 11, &want, nullptr, TraceWriter::Options(),
                            /*reuse_blocks=*/false);
  testing::RecordingVisitor v;
  const ReadResult r = ReadTraceFile(path, v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  EXPECT_EQ(r.version.major, 1);
  EXPECT_EQ(r.version.minor, minor);
  EXPECT_EQ(v.r.events, want.events);
  EXPECT_EQ(v.r.stack_nodes, want.stack_nodes);
  EXPECT_EQ(v.r.modules, want.modules);
  EXPECT_EQ(v.r.threads, want.threads);
  EXPECT_EQ(v.r.markers, want.markers);
  EXPECT_EQ(v.r.symbols, want.symbols);
  EXPECT_EQ(v.r.processes, want.processes);
  EXPECT_EQ(v.r.ends, want.ends);
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

}  // namespace
}  // namespace heaprec::format
