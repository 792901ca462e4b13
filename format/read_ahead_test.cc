// ReadTraceFileAhead makes exactly the calls ReadTraceFile makes, in the
// same order (every record kind, events across several batches), and ends
// the same way for whole, cut and unreadable traces.
#include "format/read_ahead.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <string>
#include <vector>

#include "format/test_traces.h"

namespace heaprec::format {
namespace {

// Every call as one line, in call order.
class CallLog : public TraceVisitor {
 public:
  void OnProcess(const ProcessInfo& p) override { Add("P " + p.program); }
  void OnModule(const Module& m) override { Add("Mod " + std::to_string(m.id)); }
  void OnModuleUnload(const ModuleUnload& u) override { Add("U " + std::to_string(u.id)); }
  void OnThread(const ThreadInfo& t) override { Add("T " + std::to_string(t.thread)); }
  void OnStackNode(const StackNode& n) override { Add("N " + std::to_string(n.id)); }
  void OnSymbol(const Symbol& s) override { Add("S " + std::to_string(s.address)); }
  void OnMarker(const Marker& m) override { Add("M " + std::to_string(m.seq) + m.label); }
  void OnEvent(const Event& e) override {
    Add("E " + std::to_string(e.seq) + " " + std::to_string(e.block) + " " +
        std::to_string(e.size) + " " + std::to_string(e.stack));
  }
  void OnEnd(const EndRecord& e) override { Add("End " + std::to_string(e.events)); }
  std::vector<std::string> calls;

 private:
  void Add(std::string s) { calls.push_back(std::move(s)); }
};

std::string WriteFile(const std::string& name, const std::string& bytes) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  return path;
}

void ExpectSameAsReadTraceFile(const std::string& path) {
  CallLog plain, ahead;
  const ReadResult a = ReadTraceFile(path, plain);
  const ReadResult b = ReadTraceFileAhead(path, ahead);
  EXPECT_EQ(a.status, b.status) << path;
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.chunks, b.chunks);
  EXPECT_EQ(plain.calls, ahead.calls) << path;
}

TEST(ReadAheadTest, SameCallsInTheSameOrder) {
  testing::Records expected;
  // More events than several batches hold, in chunks of 5000.
  const std::string bytes =
      testing::SampleTraceBytes(static_cast<int>(3 * kBatchEvents + 123), 5000, 7, &expected);
  const std::string path = WriteFile("ahead.zst", bytes);
  CallLog ahead;
  const ReadResult r = ReadTraceFileAhead(path, ahead);
  ASSERT_EQ(r.status, ReadResult::kComplete) << r.message;
  EXPECT_EQ(r.events, expected.events.size());
  EXPECT_GT(expected.events.size(), 3 * kBatchEvents);
  ExpectSameAsReadTraceFile(path);
}

// A visitor that asks the read to end once it has seen `after` events.
class EndsAfter : public CallLog {
 public:
  explicit EndsAfter(size_t after) : after_(after) {}
  void OnEvent(const Event& e) override {
    CallLog::OnEvent(e);
    if (++events_ == after_) done.store(true, std::memory_order_relaxed);
  }
  std::atomic<bool> done{false};

 private:
  size_t after_, events_ = 0;
};

TEST(ReadAheadTest, EndAfterEndsTheReadBeforeTheNextChunk) {
  testing::Records expected;
  const std::string path = WriteFile(
      "end_after.zst", testing::SampleTraceBytes(200000, 1000, 3, &expected));  // chunks of 1000
  for (const bool ahead : {false, true}) {
    EndsAfter v(1500);  // in the second chunk
    ReaderOptions options;
    options.end_after = &v.done;
    const ReadResult r =
        ahead ? ReadTraceFileAhead(path, v, options) : ReadTraceFile(path, v, options);
    EXPECT_EQ(r.status, ReadResult::kStopped) << "ahead " << ahead;
    // Plain: it stops right after the second chunk. Ahead: the reader may
    // have gone further (the batches in flight: under 90,000 events), never
    // to the end.
    EXPECT_GE(r.events, 2000u) << "ahead " << ahead;
    EXPECT_LT(r.events, expected.events.size()) << "ahead " << ahead;
    if (!ahead) EXPECT_EQ(r.events, 2000u);
    EXPECT_TRUE(std::none_of(v.calls.begin(), v.calls.end(),
                             [](const std::string& c) { return c.rfind("End ", 0) == 0; }));
  }
}

TEST(ReadAheadTest, CutAndUnreadableTracesEndTheSameWay) {
  std::vector<uint64_t> chunk_ends;
  const std::string bytes = testing::SampleTraceBytes(50000, 4000, 11, nullptr, &chunk_ends);
  ASSERT_GT(chunk_ends.size(), 3u);
  for (const uint64_t cut : {chunk_ends[1] + 17, chunk_ends[2], bytes.size() - 1}) {
    ExpectSameAsReadTraceFile(WriteFile("cut.zst", bytes.substr(0, cut)));
  }
  std::string flipped = bytes;
  flipped[chunk_ends[2] + 40] ^= 0x5a;
  ExpectSameAsReadTraceFile(WriteFile("flipped.zst", flipped));
  ExpectSameAsReadTraceFile(::testing::TempDir() + "/no/such/trace.zst");
}

}  // namespace
}  // namespace heaprec::format
