// Round trips: what TraceWriter is given, TraceReader delivers, field for
// field and in order, over one chunk and over many.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include "format/byte_io.h"
#include "format/chunk_builder.h"
#include "format/records_expect.h"
#include "format/switch_markers.h"
#include "format/test_traces.h"
#include "format/thread_blocks.h"
#include "format/trace_generated.h"
#include "format/trace_reader.h"
#include "format/trace_writer.h"

namespace heaprec::format {
namespace {

using testing::RecordingVisitor;
using testing::Records;
using testing::SampleTraceBytes;

// Events written without addresses, max chunk_events a chunk, and read back.
std::vector<Event> WriteAndRead(const std::vector<Event>& events, size_t chunk_events) {
  StringSink sink;
  TraceWriter::Options options;
  options.keep_addresses = false;
  options.max_chunk_events = chunk_events;
  TraceWriter w(&sink, testing::SampleProcess(), options);
  for (const Event& e : events) w.AddEvent(e);
  EXPECT_TRUE(w.Finish({}));
  RecordingVisitor v;
  const ReadResult r = ReadTraceMemory("mem", sink.bytes().data(), sink.bytes().size(), v);
  EXPECT_EQ(r.status, ReadResult::kComplete) << r.message;
  return v.r.events;
}

TEST(TraceRoundTripTest, EveryRecordKindInOneChunk) {
  Records want;
  const std::string bytes = SampleTraceBytes(200, 0, 1, &want);
  RecordingVisitor v;
  const ReadResult r = ReadTraceMemory("mem", bytes.data(), bytes.size(), v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  EXPECT_EQ(r.chunks, 1u);
  EXPECT_EQ(r.events, 200u);
  EXPECT_EQ(r.version.major, kFormatMajor);
  testing::ExpectSameRecords(want, v.r);
  // Every Api made it through, with its sparse columns.
  std::set<Api> seen;
  for (const Event& e : v.r.events) seen.insert(e.api);
  EXPECT_EQ(seen.size(), testing::AllApis().size());
}

TEST(TraceRoundTripTest, ManyChunks) {
  Records want;
  std::vector<uint64_t> ends;
  const std::string bytes = SampleTraceBytes(5000, 37, 2, &want, &ends);
  RecordingVisitor v;
  const ReadResult r = ReadTraceMemory("mem", bytes.data(), bytes.size(), v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  EXPECT_EQ(r.chunks, ends.size());
  EXPECT_GT(r.chunks, 130u);
  EXPECT_EQ(r.bytes, bytes.size());
  testing::ExpectSameRecords(want, v.r);
  EXPECT_EQ(v.r.ends.at(0).events, 5000u);
  EXPECT_EQ(v.r.ends.at(0).chunks, ends.size());
}

TEST(TraceRoundTripTest, WriterFlushesByItselfAtTheEventLimit) {
  StringSink sink;
  TraceWriter::Options options;
  options.max_chunk_events = 100;
  TraceWriter w(&sink, testing::SampleProcess(), options);
  Records want = testing::WriteSample(w, 1000, 0, 3);
  ASSERT_TRUE(w.Finish({}));
  RecordingVisitor v;
  const ReadResult r = ReadTraceMemory("mem", sink.bytes().data(), sink.bytes().size(), v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  EXPECT_GE(r.chunks, 10u);
  EXPECT_EQ(v.r.events, want.events);
}

// A level change ends the zstd frame and starts another: every record still
// reads back, and a cut after any chunk still yields the chunks before it.
TEST(TraceRoundTripTest, CompressionLevelChangesStartNewFrames) {
  TraceWriter::Options options;
  options.zstd_level = 7;
  options.fast_zstd_level = 1;
  StringSink sink;
  TraceWriter w(&sink, testing::SampleProcess(), options);
  std::vector<Event> events;
  uint64_t seq = 0;
  for (int chunk = 0; chunk < 20; ++chunk) {
    w.SetFastCompression(chunk % 6 >= 3);  // three chunks each way
    for (int i = 0; i < 100; ++i) {
      const uint64_t address = 0x10000 + 16 * static_cast<uint64_t>(i);
      events.push_back({.seq = ++seq,
                        .api = Api::kMalloc,
                        .address = address,
                        .size = static_cast<uint64_t>(i % 40)});
      w.AddEvent(events.back());
      events.push_back({.seq = ++seq, .api = Api::kFree, .address = address});
      w.AddEvent(events.back());
    }
    ASSERT_TRUE(w.Flush());
  }
  ASSERT_TRUE(w.Finish({}));
  EXPECT_EQ(w.level_changes(), 6u);  // before chunks 3, 6, 9, 12, 15, 18
  const std::string& bytes = sink.bytes();
  RecordingVisitor v;
  const ReadResult r = ReadTraceMemory("mem", bytes.data(), bytes.size(), v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  EXPECT_EQ(v.r.events, testing::AsRead(events, true));
  const std::vector<uint64_t> ends = w.chunk_ends();
  ASSERT_EQ(ends.size(), 21u);
  for (size_t c = 0; c + 1 < ends.size(); ++c) {
    RecordingVisitor cut;
    const ReadResult rc = ReadTraceMemory("cut", bytes.data(), ends[c], cut);
    EXPECT_EQ(rc.status, ReadResult::kTruncated) << "cut after chunk " << c << ": " << rc.message;
    EXPECT_EQ(rc.chunks, c + 1) << "cut after chunk " << c;
    EXPECT_EQ(cut.r.events.size(), 200 * (c + 1)) << "cut after chunk " << c;
  }
}

TEST(TraceRoundTripTest, TotalsCountWhatWasWritten) {
  StringSink sink;
  TraceWriter w(&sink, testing::SampleProcess());
  w.AddStackNode({1, 0, 0x10});
  w.AddEvent({.seq = 1, .api = Api::kMalloc, .address = 0x1000, .size = 10, .stack = 1});
  w.AddEvent({.seq = 2, .api = Api::kMalloc, .address = 0, .size = 1 << 20});  // failed
  w.AddEvent(
      {.seq = 3, .api = Api::kRealloc, .address = 0x2000, .size = 30, .old_address = 0x1000});
  w.AddEvent({.seq = 4, .api = Api::kFree, .address = 0x2000});
  w.AddEvent({.seq = 5, .api = Api::kFree, .address = 0});  // free(NULL)
  ASSERT_TRUE(w.Finish({.exit_status = 7, .symbols_complete = true}));
  RecordingVisitor v;
  const ReadResult r = ReadTraceMemory("mem", sink.bytes().data(), sink.bytes().size(), v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  ASSERT_EQ(v.r.ends.size(), 1u);
  const EndRecord& e = v.r.ends[0];
  EXPECT_EQ(e.events, 5u);
  // As valgrind counts: the malloc and the realloc are allocations, the
  // realloc (which released 0x1000) and the free are frees.
  EXPECT_EQ(e.allocations, 2u);
  EXPECT_EQ(e.reallocs, 1u);
  EXPECT_EQ(e.frees, 2u);
  EXPECT_EQ(e.bytes_allocated, 40u);
  EXPECT_EQ(e.stack_nodes, 1u);
  EXPECT_EQ(e.exit_status, 7);
  EXPECT_TRUE(e.symbols_complete);
}

// 3.3: a recording that began after the process (Process.from_start false),
// and the switch markers: released addresses are forgotten at each (a paused
// allocation may have reused them), so a later free is of an unknown block.
TEST(TraceRoundTripTest, FromStartAndRecordingSwitches) {
  StringSink sink;
  ProcessInfo process = testing::SampleProcess();
  process.from_start = false;
  TraceWriter w(&sink, process);
  w.AddEvent({.seq = 1, .api = Api::kMalloc, .address = 0x1000, .size = 100});
  w.AddEvent({.seq = 2, .api = Api::kFree, .address = 0x1000});
  w.AddMarker({.seq = 3, .time_ns = 3, .thread = 1, .label = kRecordingStopLabel});
  w.AddEvent({.seq = 3, .api = Api::kFree, .address = 0x1000});
  ASSERT_TRUE(w.Finish({.exit_status = 0}));
  RecordingVisitor v;
  const ReadResult r = ReadTraceMemory("mem", sink.bytes().data(), sink.bytes().size(), v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  ASSERT_EQ(v.r.processes.size(), 1u);
  EXPECT_FALSE(v.r.processes[0].from_start);
  EXPECT_EQ(v.r.processes[0], process);
  ASSERT_EQ(v.r.events.size(), 3u);
  EXPECT_EQ(v.r.events[1].block, 1u);
  EXPECT_EQ(v.r.events[2].block, 0u);  // not a double free of block 1
}

// 3.2: the parent's trace and an image replaced by exec; the writer's live
// bytes and peak follow the events.
TEST(TraceRoundTripTest, ParentTraceAndReplacedByExec) {
  StringSink sink;
  ProcessInfo process = testing::SampleProcess();
  process.ppid = 41;
  process.parent_trace = "traces/heaprec.sh.41.zst";
  TraceWriter w(&sink, process);
  w.AddEvent({.seq = 1, .api = Api::kMalloc, .address = 0x1000, .size = 100});
  w.AddEvent({.seq = 2, .api = Api::kMalloc, .address = 0x2000, .size = 50});
  w.AddEvent({.seq = 3, .api = Api::kFree, .address = 0x1000});
  EXPECT_EQ(w.live_bytes(), 50u);
  EXPECT_EQ(w.peak_bytes(), 150u);
  ASSERT_TRUE(w.Finish({.exit_status = -1, .replaced_by_exec = true}));
  RecordingVisitor v;
  const ReadResult r = ReadTraceMemory("mem", sink.bytes().data(), sink.bytes().size(), v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  EXPECT_EQ(r.version.minor, kFormatMinor);
  ASSERT_EQ(v.r.processes.size(), 1u);
  EXPECT_EQ(v.r.processes[0], process);
  ASSERT_EQ(v.r.ends.size(), 1u);
  EXPECT_TRUE(v.r.ends[0].replaced_by_exec);
  EXPECT_EQ(v.r.ends[0].exit_status, -1);
}

// A sampled trace: the rate round-trips, every event that made a block
// carries its weight 1 / (1 - exp(-size / rate)) and the others 1; the
// writer's live and peak bytes are estimates the same way.
TEST(TraceRoundTripTest, SampleRateAndWeights) {
  StringSink sink;
  ProcessInfo process = testing::SampleProcess();
  process.sample_rate = 4096;
  TraceWriter w(&sink, process);
  w.AddEvent({.seq = 1, .api = Api::kMalloc, .address = 0x1000, .size = 1024});
  w.AddEvent(
      {.seq = 2, .api = Api::kRealloc, .address = 0x2000, .size = 8192, .old_address = 0x1000});
  w.AddEvent({.seq = 3, .api = Api::kFree, .address = 0x2000});
  w.AddEvent({.seq = 4, .api = Api::kMalloc, .address = 0x3000, .size = 100});
  const double w100 = 1 / -std::expm1(-100.0 / 4096);
  EXPECT_EQ(w.live_bytes(), static_cast<uint64_t>(std::llround(100 * w100)));
  ASSERT_TRUE(w.Finish({}));
  RecordingVisitor v;
  const ReadResult r = ReadTraceMemory("mem", sink.bytes().data(), sink.bytes().size(), v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  ASSERT_EQ(v.r.processes.size(), 1u);
  EXPECT_EQ(v.r.processes[0].sample_rate, 4096u);
  ASSERT_EQ(v.r.events.size(), 4u);
  EXPECT_DOUBLE_EQ(v.r.events[0].weight, 1 / -std::expm1(-1024.0 / 4096));
  EXPECT_DOUBLE_EQ(v.r.events[1].weight, 1 / -std::expm1(-2.0));
  EXPECT_EQ(v.r.events[2].weight, 1.0);  // a free
  EXPECT_DOUBLE_EQ(v.r.events[3].weight, w100);
}

TEST(TraceRoundTripTest, ExactTracesWeighOne) {
  const std::string bytes = SampleTraceBytes(300, 0, 5, nullptr);
  RecordingVisitor v;
  ASSERT_EQ(ReadTraceMemory("mem", bytes.data(), bytes.size(), v).status, ReadResult::kComplete);
  ASSERT_EQ(v.r.processes.size(), 1u);
  EXPECT_EQ(v.r.processes[0].sample_rate, 0u);
  for (const Event& e : v.r.events) EXPECT_EQ(e.weight, 1.0);
}

// Wait statuses as waitpid gives them, decoded.
TEST(TraceRoundTripTest, ExitStatusDecoding) {
  EXPECT_EQ(ExitCodeOf(0), 0);
  EXPECT_EQ(ExitCodeOf(11 << 8), 11);  // exit(11): 2816
  EXPECT_EQ(TermSignalOf(11 << 8), 0);
  EXPECT_EQ(ExitCodeOf(11), -1);  // SIGSEGV
  EXPECT_EQ(TermSignalOf(11), 11);
  EXPECT_EQ(TermSignalOf(11 | 0x80), 11);  // with a core dump
  EXPECT_EQ(ExitCodeOf(-1), -1);           // unknown
  EXPECT_EQ(TermSignalOf(-1), 0);
  EXPECT_EQ(TermSignalOf(0x137f), 0);  // stopped by SIGSTOP: not an end
  EXPECT_EQ(ExitCodeOf(0x137f), -1);
}

TEST(TraceRoundTripTest, HugeSequenceGapStartsAFreshChunk) {
  StringSink sink;
  TraceWriter w(&sink, testing::SampleProcess());
  const Event a{.seq = 5, .api = Api::kMalloc, .address = 0x10, .size = 1};
  const Event b{.seq = (uint64_t{1} << 40), .api = Api::kFree, .address = 0x10};
  const Event c{.seq = (uint64_t{1} << 41), .api = Api::kMalloc, .address = 0x20, .size = 2};
  w.AddEvent(a);
  w.AddEvent(b);
  w.Flush();
  w.AddEvent(c);
  ASSERT_TRUE(w.Finish({}));
  RecordingVisitor v;
  const ReadResult r = ReadTraceMemory("mem", sink.bytes().data(), sink.bytes().size(), v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  EXPECT_EQ(v.r.events, testing::AsRead({a, b, c}, true));
  EXPECT_EQ(v.r.events[1].block, 1u);
}

TEST(TraceRoundTripTest, MarkerAfterTheLastEventOfAChunk) {
  StringSink sink;
  TraceWriter w(&sink, testing::SampleProcess());
  w.AddEvent({.seq = 1, .api = Api::kMalloc, .address = 0x10, .size = 1});
  w.AddMarker({2, 10, 1, "before-second"});
  w.Flush();
  w.AddEvent({.seq = 3, .api = Api::kFree, .address = 0x10});
  ASSERT_TRUE(w.Finish({}));
  RecordingVisitor v;
  const ReadResult r = ReadTraceMemory("mem", sink.bytes().data(), sink.bytes().size(), v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  EXPECT_EQ(v.r.order, (std::vector<std::string>{"E1", "M2", "E3"}));
}

LeakScan SampleScan(uint64_t seq, size_t blocks) {
  LeakScan s;
  s.seq = seq;
  s.time_ns = 77;
  s.thread = 1;
  s.reason = LeakScan::Reason::kRequest;
  s.label = "leak-check-1";
  s.note = "";
  s.roots = {{1, LeakRootKind::kGlobal, "g_cache", 1, 0, 0x1000, 64},
             {2, LeakRootKind::kStack, "stack of thread 1 (main)", 0, 1, 0x7ff0000, 8192}};
  for (size_t i = 0; i < blocks; ++i) {
    const auto kind = static_cast<LeakKind>(1 + i % 4);
    s.blocks.push_back(1 + 3 * i);
    s.kinds.push_back(
        LeakScan::PackKind(kind, i % 7 == 3 ? LeakHeuristic::kNewArray : LeakHeuristic::kNone));
    s.block_roots.push_back(kind == LeakKind::kReachable ? static_cast<uint32_t>(i % 3) : 0);
    s.block_indirect.push_back(kind == LeakKind::kDefinite ? 100 * i : 0);
  }
  s.bytes_scanned = 4096;
  s.pause_ns = 12345;
  return s;
}

// A leak scan comes back whole, between the events before and after its
// seq, after a marker of the same seq.
TEST(TraceRoundTripTest, LeakScanBetweenEvents) {
  StringSink sink;
  TraceWriter w(&sink, testing::SampleProcess());
  w.AddEvent({.seq = 1, .api = Api::kMalloc, .address = 0x10, .size = 1});
  w.AddMarker({2, 10, 1, "leak-check-1"});
  const LeakScan scan = SampleScan(2, 100);
  w.AddLeakScan(scan);
  w.AddEvent({.seq = 2, .api = Api::kFree, .address = 0x10});
  ASSERT_TRUE(w.Finish({}));
  RecordingVisitor v;
  const ReadResult r = ReadTraceMemory("mem", sink.bytes().data(), sink.bytes().size(), v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  EXPECT_EQ(v.r.order, (std::vector<std::string>{"E1", "M2", "L2", "E2"}));
  ASSERT_EQ(v.r.leak_scans.size(), 1u);
  const LeakScan& got = v.r.leak_scans[0];
  EXPECT_EQ(got.label, scan.label);
  EXPECT_EQ(got.note, scan.note);
  EXPECT_EQ(got.roots, scan.roots);
  EXPECT_EQ(got.blocks, scan.blocks);
  EXPECT_EQ(got.kinds, scan.kinds);
  EXPECT_EQ(got.block_roots, scan.block_roots);
  EXPECT_EQ(got.block_indirect, scan.block_indirect);
  EXPECT_EQ(got, scan);
}

// RSS samples (3.4) come back exactly (times to the µs, sizes to the KiB, as
// stored), each before the event with its seq, before a marker of the same
// seq, and across chunks; sizes may go down as well as up.
TEST(TraceRoundTripTest, RssSamplesBetweenEventsAndAcrossChunks) {
  StringSink sink;
  TraceWriter w(&sink, testing::SampleProcess());
  const std::vector<RssSample> samples = {
      {1, 1'000'000, 4096 * 300, 1 << 20, 0},
      {2, 11'000'000, uint64_t{70} << 20, 1 << 20, 8192},
      {2, 21'000'000, uint64_t{71} << 20, 1 << 20, 8192},
      {3, 31'000'000, 4096 * 310, (1 << 20) + 4096, 0},
      {5, 41'000'000, 1024, 0, 0},
  };
  w.AddRssSample(samples[0]);
  w.AddEvent({.seq = 1, .api = Api::kMalloc, .address = 0x10, .size = 1});
  w.AddRssSample(samples[1]);
  w.AddRssSample(samples[2]);
  w.AddMarker({2, 10, 1, "m"});
  w.Flush();
  w.AddRssSample(samples[3]);
  w.AddEvent({.seq = 3, .api = Api::kFree, .address = 0x10});
  w.Flush();
  w.AddRssSample(samples[4]);
  ASSERT_TRUE(w.Finish({}));
  RecordingVisitor v;
  const ReadResult r = ReadTraceMemory("mem", sink.bytes().data(), sink.bytes().size(), v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  EXPECT_TRUE(r.version.major > 3 || r.version.minor >= 4);  // RSS samples came in 3.4
  EXPECT_EQ(v.r.rss_samples, samples);
  EXPECT_EQ(v.r.order, (std::vector<std::string>{"R1", "E1", "R2", "R2", "M2", "R3", "E3", "R5"}));
}

// A sample whose seq lies before an event of an earlier chunk is damage.
TEST(TraceRoundTripTest, RssSampleBeforeAnEarlierChunksEventIsRejected) {
  StringSink sink;
  TraceWriter w(&sink, testing::SampleProcess());
  w.AddEvent({.seq = 1, .api = Api::kMalloc, .address = 0x10, .size = 1});
  w.AddEvent({.seq = 2, .api = Api::kFree, .address = 0x10});
  w.Flush();
  w.AddRssSample({2, 5, 4096, 0, 0});
  ASSERT_TRUE(w.Finish({}));
  RecordingVisitor v;
  const ReadResult r = ReadTraceMemory("mem", sink.bytes().data(), sink.bytes().size(), v);
  EXPECT_EQ(r.status, ReadResult::kError);
  EXPECT_NE(r.message.find("RSS sample out of order"), std::string::npos) << r.message;
}

// A scan of more blocks than a part holds is written in parts, one chunk
// each, that come back in order and join to the scan written.
TEST(TraceRoundTripTest, LargeLeakScanInParts) {
  StringSink sink;
  TraceWriter w(&sink, testing::SampleProcess());
  w.AddEvent({.seq = 1, .api = Api::kMalloc, .address = 0x10, .size = 1});
  const LeakScan scan = SampleScan(5, 2 * TraceWriter::kLeakScanPart + 10);
  w.AddLeakScan(scan);
  w.AddEvent({.seq = 5, .api = Api::kFree, .address = 0x10});
  ASSERT_TRUE(w.Finish({}));
  RecordingVisitor v;
  const ReadResult r = ReadTraceMemory("mem", sink.bytes().data(), sink.bytes().size(), v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  ASSERT_EQ(v.r.leak_scans.size(), 3u);
  LeakScan joined = v.r.leak_scans[0];
  EXPECT_TRUE(joined.more);
  for (size_t p = 1; p < 3; ++p) {
    const LeakScan& part = v.r.leak_scans[p];
    EXPECT_EQ(part.seq, 5u);
    EXPECT_EQ(part.part, p);
    EXPECT_TRUE(part.roots.empty());
    joined.blocks.insert(joined.blocks.end(), part.blocks.begin(), part.blocks.end());
    joined.kinds.insert(joined.kinds.end(), part.kinds.begin(), part.kinds.end());
    joined.block_roots.insert(joined.block_roots.end(), part.block_roots.begin(),
                              part.block_roots.end());
    joined.block_indirect.insert(joined.block_indirect.end(), part.block_indirect.begin(),
                                 part.block_indirect.end());
    joined.more = part.more;
  }
  joined.part = 0;
  EXPECT_EQ(joined, scan);
  EXPECT_EQ(v.r.order.back(), "E5");
}

TEST(TraceRoundTripTest, FileRoundTripAndOpenErrors) {
  const std::string dir = ::testing::TempDir();
  const std::string path = dir + "/roundtrip.zst";
  {
    std::string error;
    auto sink = FdSink::Create(path, &error);
    ASSERT_TRUE(sink) << error;
    TraceWriter w(sink.get(), testing::SampleProcess());
    testing::WriteSample(w, 300, 50, 4);
    ASSERT_TRUE(w.Finish({}));
    ASSERT_TRUE(sink->Close());
  }
  RecordingVisitor v;
  ReadResult r = ReadTraceFile(path, v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  EXPECT_EQ(v.r.events.size(), 300u);

  r = ReadTraceFile(dir + "/does-not-exist.zst", v);
  EXPECT_EQ(r.status, ReadResult::kError);
  EXPECT_EQ(r.message, dir + "/does-not-exist.zst: cannot open: No such file or directory");
  r = ReadTraceFile(dir, v);
  EXPECT_EQ(r.status, ReadResult::kError);
  EXPECT_EQ(r.message, dir + ": cannot open: is a directory");
}

TEST(TraceRoundTripTest, WholeTraceIsAValidZstdStream) {
  // The header is a skippable frame, so `zstd -d` accepts a trace: check the
  // frame sizes tile the file exactly.
  const std::string bytes = SampleTraceBytes(500, 100, 5, nullptr);
  size_t pos = 0, frames = 0;
  while (pos < bytes.size()) {
    const size_t n = ZSTD_findFrameCompressedSize(bytes.data() + pos, bytes.size() - pos);
    ASSERT_FALSE(ZSTD_isError(n)) << ZSTD_getErrorName(n) << " at " << pos;
    pos += n;
    ++frames;
  }
  EXPECT_EQ(pos, bytes.size());
  EXPECT_EQ(frames, 1u + 1u);  // header + one stream holding every chunk
}

}  // namespace
}  // namespace heaprec::format

namespace heaprec::format {
namespace {

TEST(TraceRoundTripTest, TimeUnitRoundsTimesDown) {
  StringSink sink;
  TraceWriter::Options options;
  options.time_unit_ns = 1000;
  options.max_chunk_events = 3;
  TraceWriter w(&sink, testing::SampleProcess(), options);
  const std::vector<uint64_t> times = {999, 1000, 1999, 5500, 4200, 123456789};
  for (size_t i = 0; i < times.size(); ++i) {
    w.AddEvent({.seq = i + 1,
                .time_ns = times[i],
                .api = Api::kMalloc,
                .address = 16 * i + 16,
                .size = 1});
  }
  ASSERT_TRUE(w.Finish({}));
  testing::RecordingVisitor v;
  const ReadResult r = ReadTraceMemory("mem", sink.bytes().data(), sink.bytes().size(), v);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  ASSERT_EQ(v.r.events.size(), times.size());
  for (size_t i = 0; i < times.size(); ++i) {
    EXPECT_EQ(v.r.events[i].time_ns, times[i] / 1000 * 1000) << i;
  }
}

}  // namespace
}  // namespace heaprec::format

namespace heaprec::format {
namespace {

// Without addresses (what heaprec writes), blocks still pair every free
// with its allocation, across chunks, and only unknown blocks keep theirs.
TEST(TraceRoundTripTest, WithoutAddressesBlocksStillPair) {
  for (const bool keep : {true, false}) {
    TraceWriter::Options options;
    options.keep_addresses = keep;
    options.max_chunk_events = 37;
    Records want;
    const std::string bytes = SampleTraceBytes(3000, 0, 6, &want, nullptr, options);
    RecordingVisitor v;
    const ReadResult r = ReadTraceMemory("mem", bytes.data(), bytes.size(), v);
    ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
    EXPECT_GT(r.chunks, 50u);
    ASSERT_EQ(v.r.events.size(), want.events.size());
    size_t known = 0, unknown = 0;
    for (size_t i = 0; i < want.events.size(); ++i) {
      ASSERT_EQ(v.r.events[i], want.events[i]) << "keep " << keep << " event " << i;
      if (want.events[i].kind() == EventKind::kFree) {
        (want.events[i].block != 0 ? known : unknown) += 1;
      }
    }
    EXPECT_GT(known, 100u);   // the sample frees live blocks...
    EXPECT_GT(unknown, 50u);  // ...and others (double frees, random addresses)
  }
}

// Events are written grouped by thread and read back in seq order, whatever
// the thread indexes (dense small ones or not).
TEST(TraceRoundTripTest, ThreadsInterleavedComeBackInSeqOrder) {
  for (const uint32_t far : {3u, 0xffffffffu}) {
    std::vector<Event> events;
    const uint32_t threads[] = {2, far, 2, 1, far, far, 1, 2};
    for (uint64_t i = 0; i < 400; ++i) {
      const uint64_t a = 0x1000 + 16 * (i / 2);
      events.push_back({.seq = 4 * i + 1 + i % 3,  // with seqs skipped between
                        .time_ns = i * 1000,
                        .thread = threads[i % 8],
                        .api = i % 2 == 0 ? Api::kMalloc : Api::kFree,
                        .address = a,
                        .size = i % 2 == 0 ? 8 + i % 5 : 0});
    }
    EXPECT_EQ(WriteAndRead(events, 64), testing::AsRead(events, false)) << "far thread " << far;
  }
}

// A chunk's per-thread runs are merged back into seq order: 1 to 5 runs
// (merged pairwise, odd counts too) and 100 runs (sorted instead).
TEST(TraceRoundTripTest, ManyThreadsPerChunkComeBackInSeqOrder) {
  for (const uint32_t threads : {1u, 2u, 3u, 5u, 100u}) {
    std::vector<Event> events;
    for (uint64_t i = 0; i < 2000; ++i) {
      events.push_back({.seq = i + 1,
                        .time_ns = i * 1000,
                        .thread = static_cast<uint32_t>((i * 7 + i / 3) % threads) + 1,
                        .api = Api::kMalloc,
                        .address = 0x1000 + 16 * i,
                        .size = 8 + i % 9});
    }
    EXPECT_EQ(WriteAndRead(events, 1000), testing::AsRead(events, false)) << threads << " threads";
  }
}

// Allocator-like reuse: the same workload written with and without
// addresses; blocks pair the same way, and the trace without is smaller.
TEST(TraceRoundTripTest, BlockRefsReplaceAddressesAndShrinkTheTrace) {
  std::vector<Event> events;
  uint64_t seq = 0, next_block = 0x55550000;
  std::vector<uint64_t> live, freed;
  for (int i = 0; i < 20000; ++i) {
    const int what = (i * 7919) % 10;
    if (what < 4 || live.empty()) {
      uint64_t a = next_block += 64;
      if (!freed.empty() && what % 2 == 0) {
        a = freed.back();  // LIFO reuse, as tcache does
        freed.pop_back();
      }
      live.push_back(a);
      events.push_back({.seq = ++seq, .api = Api::kNew, .address = a, .size = 48, .stack = 0});
    } else if (what < 8) {
      const size_t k = live.size() - 1 - static_cast<size_t>(i % std::min<size_t>(live.size(), 5));
      const uint64_t a = live[k];
      live.erase(live.begin() + static_cast<long>(k));
      freed.push_back(a);
      events.push_back({.seq = ++seq, .api = Api::kDeleteSized, .address = a, .size = 48});
    } else {
      const uint64_t old = live.back();
      const uint64_t moved = next_block += 128;
      live.back() = moved;
      freed.push_back(old);
      events.push_back(
          {.seq = ++seq, .api = Api::kRealloc, .address = 0, .size = 0, .old_address = old});
      events.push_back({.seq = ++seq, .api = Api::kRealloc, .address = moved, .size = 100});
    }
  }
  size_t sizes[2];
  for (int keep = 0; keep < 2; ++keep) {
    StringSink sink;
    TraceWriter::Options options;
    options.keep_addresses = keep == 1;
    options.max_chunk_events = 1000;
    TraceWriter w(&sink, testing::SampleProcess(), options);
    for (const Event& e : events) w.AddEvent(e);
    ASSERT_TRUE(w.Finish({}));
    testing::RecordingVisitor v;
    const ReadResult r = ReadTraceMemory("mem", sink.bytes().data(), sink.bytes().size(), v);
    ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
    const std::vector<Event> want = testing::AsRead(events, keep == 1);
    ASSERT_EQ(v.r.events.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(v.r.events[i], want[i]) << i;
    for (const Event& e : v.r.events) {
      if (e.kind() == EventKind::kFree) {
        ASSERT_NE(e.block, 0u);  // every free is known
      }
    }
    sizes[keep] = sink.bytes().size();
  }
  EXPECT_LT(sizes[0], sizes[1]) << sizes[0] << " vs " << sizes[1];
}

// Four threads each keep a window of blocks and free them in turn; every
// 8th block is handed to the next thread, which frees it at least 200 of its
// own steps later. Each thread does the same whatever the interleaving:
// `slice` steps of a thread run before the next thread's (1: finely
// interleaved, at most 100). Addresses are unique, so blocks pair by
// address; some frees name addresses never allocated.
std::vector<Event> HandoffEvents(int slice) {
  auto address = [](uint32_t t, uint64_t step) { return 0x1000000ull * (t + 1) + 16 * step; };
  std::vector<uint64_t> window[4];
  uint64_t taken[4] = {};  // handed blocks freed, per taker
  std::vector<Event> out;
  uint64_t seq = 0;
  for (uint64_t first = 0; first < 3000; first += static_cast<uint64_t>(slice)) {
    for (uint32_t t = 0; t < 4; ++t) {
      const uint32_t giver = (t + 3) % 4;
      for (uint64_t n = first; n < first + static_cast<uint64_t>(slice); ++n) {
        Event e = {.seq = ++seq, .thread = t + 1, .api = Api::kFree};
        if (n % 3 != 2) {
          e.api = Api::kMalloc;
          e.address = address(t, n);
          e.size = 24;
          if (n % 8 != 0) window[t].push_back(e.address);  // else handed on
        } else if (n % 2 == 0 && 8 * taken[t] + 200 <= n) {
          e.address = address(giver, 8 * taken[t]++);  // the giver's handed block
        } else if (window[t].size() > 16) {
          e.address = window[t].front();
          window[t].erase(window[t].begin());
        } else {
          e.address = 0x777770 + n;  // never allocated
        }
        out.push_back(e);
      }
    }
  }
  return out;
}

// The refs of one chunk holding all of events, as written.
struct RefColumns {
  std::vector<uint8_t> block_ref, ref_form, ref_thread;
};
RefColumns RefsOf(const std::vector<Event>& events) {
  ChunkBuilder chunk(1, /*keep_addresses=*/false);
  chunk.SetProcess(testing::SampleProcess());
  for (const Event& e : events) chunk.AddEvent(e);
  const std::vector<uint8_t> bytes = chunk.Finish();
  const fb::Chunk& c = *fb::GetChunk(bytes.data());
  RefColumns r;
  if (c.block_ref()) r.block_ref.assign(c.block_ref()->begin(), c.block_ref()->end());
  if (c.ref_form()) r.ref_form.assign(c.ref_form()->begin(), c.ref_form()->end());
  if (c.ref_thread_v()) r.ref_thread.assign(c.ref_thread_v()->begin(), c.ref_thread_v()->end());
  return r;
}

size_t CountForm(const RefColumns& r, uint8_t form) {
  return static_cast<size_t>(std::count(r.ref_form.begin(), r.ref_form.end(), form));
}

// Format 3: a free names its block by the thread that made it (its own: k-th
// most recent; another's: that thread's i-th), so the refs are the same bytes
// however finely the threads interleave, and read back to the same blocks.
TEST(TraceRoundTripTest, FreesNameBlocksByTheirThreadWhateverTheInterleaving) {
  const std::vector<Event> coarse = HandoffEvents(100), fine = HandoffEvents(1);
  ASSERT_EQ(coarse.size(), fine.size());
  for (const auto* events : {&coarse, &fine}) {
    const std::vector<Event> want = testing::AsRead(*events, false);
    EXPECT_EQ(WriteAndRead(*events, 1000), want);
    size_t frees = 0, handed = 0, unknown = 0;
    std::map<uint64_t, uint32_t> maker;
    for (const Event& e : want) {
      if (e.kind() == EventKind::kAlloc) maker[e.block] = e.thread;
      if (e.kind() != EventKind::kFree) continue;
      ++frees;
      if (e.block == 0) {
        ++unknown;
      } else {
        handed += maker[e.block] != e.thread;
      }
    }
    EXPECT_GT(handed, 500u);
    EXPECT_GT(unknown, 100u);
    EXPECT_GT(frees, handed + unknown + 1000);
  }
  const RefColumns a = RefsOf(coarse), b = RefsOf(fine);
  EXPECT_EQ(a.ref_form, b.ref_form);
  EXPECT_EQ(a.block_ref, b.block_ref);
  EXPECT_EQ(a.ref_thread, b.ref_thread);
  EXPECT_GT(CountForm(a, 0), 100u);  // the unknown addresses
  EXPECT_GT(CountForm(a, 1), 1000u);
  EXPECT_GT(CountForm(a, 2), 500u);
}

// A block its maker made ThreadBlocks::kWindow or more blocks ago is named
// by d (form 0), whichever thread frees it; blocks read back right.
TEST(TraceRoundTripTest, OldBlocksAreNamedByDistance) {
  std::vector<Event> events;
  uint64_t seq = 0;
  const uint64_t n = ThreadBlocks::kWindow + 100;
  for (uint64_t i = 0; i < n; ++i) {
    events.push_back(
        {.seq = ++seq, .thread = 1, .api = Api::kMalloc, .address = 0x1000 + 16 * i, .size = 8});
    events.push_back(
        {.seq = ++seq, .thread = 2, .api = Api::kMalloc, .address = 0x900000 + 16 * i, .size = 8});
  }
  size_t frees = 0;
  for (uint64_t i = 0; i < n; i += 7) {  // oldest first: i < 100 are past both windows
    events.push_back({.seq = ++seq, .thread = 1, .api = Api::kFree, .address = 0x1000 + 16 * i});
    events.push_back({.seq = ++seq, .thread = 1, .api = Api::kFree, .address = 0x900000 + 16 * i});
    frees += 2;
  }
  EXPECT_EQ(WriteAndRead(events, 1000), testing::AsRead(events, false));
  const RefColumns r = RefsOf(events);
  EXPECT_EQ(r.ref_form.size(), frees);
  EXPECT_EQ(CountForm(r, 0), 2u * 15);  // i = 0, 7, ..., 98
  EXPECT_EQ(CountForm(r, 1) + CountForm(r, 2), frees - 2 * 15);
  EXPECT_EQ(CountForm(r, 1), CountForm(r, 2));
}

// A block its maker made last, but more than ChunkBuilder::kRecentBlocks
// blocks ago (other threads made them), is named by d; one just inside that
// range by its maker. Blocks read back right across the table's wrap.
TEST(TraceRoundTripTest, BlocksPastTheRecentTableAreNamedByDistance) {
  std::vector<Event> events;
  uint64_t seq = 0;
  auto alloc = [&](uint32_t thread, uint64_t address) {
    events.push_back(
        {.seq = ++seq, .thread = thread, .api = Api::kMalloc, .address = address, .size = 8});
  };
  auto release = [&](uint32_t thread, uint64_t address) {
    events.push_back({.seq = ++seq, .thread = thread, .api = Api::kFree, .address = address});
  };
  alloc(1, 0x10);  // block 1: ChunkBuilder::kRecentBlocks + 1 blocks before the frees
  alloc(1, 0x20);  // block 2: just inside the range
  for (uint64_t i = 0; i + 1 < ChunkBuilder::kRecentBlocks; ++i) alloc(2, 0x100000 + 16 * i);
  release(1, 0x10);      // thread 1 made nothing since, but the table has wrapped
  release(3, 0x20);      // another thread frees thread 1's 2nd block
  release(1, 0x100000);  // thread 2's first block, past its maker's window
  EXPECT_EQ(WriteAndRead(events, events.size()), testing::AsRead(events, false));
  const RefColumns r = RefsOf(events);                     // columns go thread by thread
  EXPECT_EQ(r.ref_form, (std::vector<uint8_t>{0, 0, 2}));  // thread 1's two frees, thread 3's
}

}  // namespace
}  // namespace heaprec::format
