// Issue 24's point 5, through the reader: a trace read ahead on a second
// thread, its events handed to the analyses in runs (heapreplay's way),
// answers exactly what the same trace read one event at a time did, for
// traces of three threads over every Api (one chunk or many, with and
// without addresses), and for one cut short.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "analyzers/pass_answers.h"
#include "format/read_ahead.h"
#include "format/test_traces.h"
#include "format/trace_reader.h"

namespace heaprec::heapreplay {
namespace {

using analyzers::Moment;
using analyzers::testing::AllAnalyzers;
using analyzers::testing::ExpectSameAnswers;
using analyzers::testing::Feed;

// Hands every record on, events one at a time (it does not take runs, so
// TraceVisitor's default splits them): the pass as it went before.
class OneAtATime : public format::TraceVisitor {
 public:
  explicit OneAtATime(format::TraceVisitor* to) : to_(to) {}
  void OnProcess(const format::ProcessInfo& p) override { to_->OnProcess(p); }
  void OnModule(const format::Module& m) override { to_->OnModule(m); }
  void OnModuleUnload(const format::ModuleUnload& m) override { to_->OnModuleUnload(m); }
  void OnThread(const format::ThreadInfo& t) override { to_->OnThread(t); }
  void OnStackNode(const format::StackNode& n) override { to_->OnStackNode(n); }
  void OnSymbol(const format::Symbol& s) override { to_->OnSymbol(s); }
  void OnMarker(const format::Marker& m) override { to_->OnMarker(m); }
  void OnLeakScan(const format::LeakScan& s) override { to_->OnLeakScan(s); }
  void OnRssSample(const format::RssSample& s) override { to_->OnRssSample(s); }
  void OnEvent(const format::Event& e) override { to_->OnEvent(e); }
  void OnEnd(const format::EndRecord& e) override { to_->OnEnd(e); }

 private:
  format::TraceVisitor* to_;
};

std::string WriteFile(const std::string& bytes, const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir ? dir : "/tmp") + "/" + name;
  FILE* f = std::fopen(path.c_str(), "wb");
  EXPECT_NE(f, nullptr) << path;
  if (f == nullptr) return path;
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  return path;
}

void Compare(const std::string& bytes, const std::string& where, format::ReadResult::Status want) {
  AllAnalyzers old(Moment{}, Feed::kOneAtATime), now(Moment{}, Feed::kInRuns);
  OneAtATime forward(&old.analysis);
  const format::ReadResult a =
      format::ReadTraceMemory("t.zst", bytes.data(), bytes.size(), forward);
  const format::ReadResult b = format::ReadTraceFileAhead(WriteFile(bytes, "t.zst"), now.analysis);
  EXPECT_EQ(a.status, want) << where << ": " << a.message;
  EXPECT_EQ(b.status, want) << where << ": " << b.message;
  EXPECT_EQ(a.events, b.events) << where;
  EXPECT_GT(b.events, 0u) << where;
  ExpectSameAnswers(&old, &now, where);
}

TEST(ReadPassTest, ReadAheadInRunsAnswersAsOneEventAtATime) {
  for (uint32_t seed : {1u, 2u}) {
    for (int flush_every : {0, 997}) {
      for (bool keep : {true, false}) {
        format::TraceWriter::Options options;
        options.keep_addresses = keep;
        const std::string bytes =
            format::testing::SampleTraceBytes(40000, flush_every, seed, nullptr, nullptr, options);
        Compare(bytes,
                "seed " + std::to_string(seed) + " flush " + std::to_string(flush_every) +
                    (keep ? " addresses" : ""),
                format::ReadResult::kComplete);
      }
    }
  }
}

TEST(ReadPassTest, ACutTraceAnswersTheSameUpToTheCut) {
  const std::string bytes = format::testing::SampleTraceBytes(40000, 997, 3, nullptr);
  Compare(bytes.substr(0, bytes.size() / 2), "cut", format::ReadResult::kTruncated);
}

}  // namespace
}  // namespace heaprec::heapreplay
