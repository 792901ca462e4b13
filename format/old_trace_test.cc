// Traces written by earlier versions keep reading: format/testdata holds a
// trace written by format 1.0 (the sample of test_traces.h: 60 events, a
// flush every 7, seed 11). Never regenerate it; add a new file for a new
// version instead.
#include <gtest/gtest.h>

#include "format/test_traces.h"
#include "format/trace_reader.h"

namespace heaprec::format {
namespace {

TEST(OldTraceTest, Version1Dot0ReadsAsWritten) {
  testing::Records want;
  testing::SampleTraceBytes(60, 7, 11, &want);
  testing::RecordingVisitor v;
  const ReadResult r = ReadTraceFile("format/testdata/trace_v1_0.zst", v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  EXPECT_EQ(r.version.major, 1);
  EXPECT_EQ(r.version.minor, 0);
  EXPECT_EQ(v.r.events, want.events);
  EXPECT_EQ(v.r.stack_nodes, want.stack_nodes);
  EXPECT_EQ(v.r.modules, want.modules);
  EXPECT_EQ(v.r.threads, want.threads);
  EXPECT_EQ(v.r.markers, want.markers);
  EXPECT_EQ(v.r.symbols, want.symbols);
  EXPECT_EQ(v.r.processes, want.processes);
  EXPECT_EQ(v.r.ends, want.ends);
}

}  // namespace
}  // namespace heaprec::format
