// The trace index (index_use.h) changes no answer: questions about random
// moments of sample traces (many chunks, markers, times that step back)
// asked with the index and without (--no-index) print the same text and
// JSON reports (leaks, differences, the peak, hot sites, temporaries, the
// overview); the ones that can start from a checkpoint do (all but those
// whose JSON holds lifetimes); a damaged or stale index is ignored,
// rebuilt, and the answers stay the same.
#include <gtest/gtest.h>
#include <sys/time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "format/test_traces.h"
#include "heapreplay/analysis_plan.h"
#include "heapreplay/options.h"
#include "heapreplay/report_output.h"
#include "heapreplay/run_analysis.h"
#include "heapreplay/trace_index.h"

namespace heaprec::heapreplay {
namespace {

struct Answer {
  std::string text, json;
  // Of the text question; json_from_checkpoint: of the JSON one.
  bool from_checkpoint = false, from_frame = false, json_from_checkpoint = false;
  int snapshots = 0;  // --diff's moments taken by passes of their own (text)
};

// heapreplay ARGS TRACE, its stdout as text and as --json.
Answer Ask(std::vector<std::string> args, const std::string& trace) {
  Answer answer;
  for (bool json : {false, true}) {
    std::vector<std::string> all = {"heapreplay"};
    all.insert(all.end(), args.begin(), args.end());
    if (json) all.push_back("--json");
    all.push_back(trace);
    std::vector<char*> argv;
    for (std::string& a : all) argv.push_back(a.data());
    Options o;
    std::string error;
    EXPECT_TRUE(ParseOptions(static_cast<int>(argv.size()), argv.data(), &o, &error)) << error;
    const std::unique_ptr<AnalysisPlan> plan = AnalysisPlan::Make(o, &error);
    EXPECT_NE(plan, nullptr) << error;
    if (!plan) return answer;
    analyzers::Report report;
    std::string out;
    if (RunAnalysis(o, plan.get(), &report, &error)) {
      out = StdoutText(o, report, BenchShown{});
    } else {
      out = "error: " + error;
    }
    (json ? answer.json : answer.text) = out;
    if (json) {
      answer.json_from_checkpoint = plan->from_checkpoint;
    } else {
      answer.from_checkpoint = plan->from_checkpoint;
      answer.from_frame = plan->from_frame;
      answer.snapshots =
          (plan->before && plan->before->adopted()) + (plan->after && plan->after->adopted());
    }
  }
  return answer;
}

std::string WriteTrace(const std::string& bytes, const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir ? dir : "/tmp") + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  std::remove(IndexPath(path).c_str());
  return path;
}

std::string Time(uint64_t ns) { return std::to_string(ns) + "ns"; }

bool Has(const std::vector<std::string>& q, const std::string& arg) {
  return std::find(q.begin(), q.end(), arg) != q.end();
}

// The questions of a round, about the moments m and n.
using Questions = std::vector<std::vector<std::string>> (*)(const std::string& m,
                                                            const std::string& n);

std::vector<std::vector<std::string>> LeaksAndDiffs(const std::string& m, const std::string& n) {
  return {{"--leaks", "--at", m},
          {"--at", m, "--leaks", "--top", "0"},
          {"--diff", "--from", m, "--to", n},
          {"--leaks"},
          {"--diff", "--from", m},
          {"--leaks", "--peak", "--at", m}};
}

// The JSON of --hot and --temporaries holds lifetimes, which no checkpoint
// holds: those read the whole trace (and still answer the same).
std::vector<std::vector<std::string>> PeaksAndHotSites(const std::string& m, const std::string& n) {
  return {{"--at", m},
          {"--peak", "--at", m},
          {"--hot", "--at", m},
          {"--temporaries", "--top", "0", "--at", m},
          {"--leaks", "--peak", "--hot", "--temporaries", "--at", m},
          {"--peak", "--diff", "--from", m, "--to", n},
          {},
          {"--hot", "--temporaries", "--diff", "--from", m}};
}

// frame_bytes: the trace's zstd frames end every this many bytes (0: one
// frame), so that the index can skip decompressing what comes before.
// rounds: of questions, each about new moments (under ASan on a busy
// machine a round of eight questions takes about 80 s).
void AskRandomQuestions(uint32_t seed, uint64_t frame_bytes, Questions questions, int rounds) {
  {
    format::testing::Records records;
    format::TraceWriter::Options options;
    options.frame_bytes = frame_bytes;
    const std::string trace = WriteTrace(
        format::testing::SampleTraceBytes(30000, 499, seed, &records, nullptr, options), "t.zst");
    Ask({"--index"}, trace);  // writes t.zst.hri
    TraceIndex index;
    IndexKey key;
    std::string why;
    ASSERT_TRUE(KeyOf(trace, &key, &why)) << why;
    ASSERT_EQ(index.Open(trace, key, &why), TraceIndex::Status::kOk) << why;
    EXPECT_GT(index.checkpoints().size(), 20u);

    std::mt19937 rng(seed);
    auto moment = [&]() -> std::string {
      switch (rng() % 4) {
        case 0:
          return records.markers[rng() % records.markers.size()].label;
        case 1:
          return "end";
        default:
          return Time(records.events[rng() % records.events.size()].time_ns + rng() % 3);
      }
    };
    int resumed = 0, from_frame = 0, asked = 0, snapshots = 0;
    for (int i = 0; i < rounds; ++i) {
      const std::string m = moment(), n = moment();
      for (const std::vector<std::string>& q : questions(m, n)) {
        std::vector<std::string> plain = q;
        plain.push_back("--no-index");
        const Answer with = Ask(q, trace), without = Ask(plain, trace);
        std::string where = "seed " + std::to_string(seed);
        for (const std::string& a : q) where += " " + a;
        EXPECT_EQ(with.text, without.text) << where;
        EXPECT_EQ(with.json, without.json) << where;
        EXPECT_FALSE(without.from_checkpoint) << where;
        EXPECT_EQ(without.snapshots, 0) << where;
        EXPECT_FALSE(without.json_from_checkpoint) << where;
        if (Has(q, "--hot") || Has(q, "--temporaries")) {
          EXPECT_FALSE(with.json_from_checkpoint) << where << " --json";  // lifetimes
        } else {
          EXPECT_EQ(with.json_from_checkpoint, with.from_checkpoint) << where << " --json";
        }
        resumed += with.from_checkpoint;
        snapshots += with.snapshots;
        from_frame += with.from_frame;
        ++asked;
      }
    }
    // Most questions start from a checkpoint (not moments at the very
    // start).
    EXPECT_GT(resumed, asked / 2) << "seed " << seed;
    // Some of --diff's moments are taken from checkpoints of their own.
    EXPECT_GT(snapshots, 2) << "seed " << seed;
    if (frame_bytes == 0) {
      EXPECT_EQ(from_frame, 0);
    } else {
      EXPECT_GT(from_frame, asked / 3) << "seed " << seed;
    }
  }
}

TEST(IndexTest, AnswersWithTheIndexAreTheAnswersWithout) {
  AskRandomQuestions(1, 0, LeaksAndDiffs, 6);
}

TEST(IndexTest, AnswersFromALaterZstdFrameAreTheAnswersWithout) {
  AskRandomQuestions(2, 200 * 1000, LeaksAndDiffs, 6);
}

TEST(IndexTest, PeaksAndHotSitesWithTheIndexAreTheAnswersWithout) {
  AskRandomQuestions(4, 0, PeaksAndHotSites, 4);
}

TEST(IndexTest, PeaksAndHotSitesFromALaterZstdFrameAreTheAnswersWithout) {
  AskRandomQuestions(5, 200 * 1000, PeaksAndHotSites, 4);
}

TEST(IndexTest, ADamagedOrStaleIndexIsRebuiltAndAnswersStayTheSame) {
  format::testing::Records records;
  const std::string trace =
      WriteTrace(format::testing::SampleTraceBytes(20000, 499, 7, &records), "d.zst");
  const std::string label = records.markers[records.markers.size() * 3 / 4].label;
  const Answer truth = Ask({"--leaks", "--at", label, "--no-index"}, trace);
  const Answer peak_truth = Ask({"--peak", "--hot", "--at", label, "--no-index"}, trace);
  Ask({"--index"}, trace);
  EXPECT_TRUE(Ask({"--leaks", "--at", label}, trace).from_checkpoint);

  // Damage: every byte of a checkpoint's middle flipped, then the file cut.
  const std::string path = IndexPath(trace);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(bytes.size(), 1000u);
  for (const std::string& damaged :
       {bytes.substr(0, bytes.size() / 2), std::string(bytes).replace(100, 50, 50, 'x'),
        std::string(bytes).replace(bytes.size() - 30, 4, 4, 'x'), std::string("junk")}) {
    std::ofstream(path, std::ios::binary) << damaged;
    const Answer a = Ask({"--leaks", "--at", label}, trace);
    EXPECT_EQ(a.text, truth.text);
    EXPECT_EQ(a.json, truth.json);
    EXPECT_TRUE(a.from_checkpoint);  // rebuilt, then used
    const Answer p = Ask({"--peak", "--hot", "--at", label}, trace);
    EXPECT_EQ(p.text, peak_truth.text);
    EXPECT_EQ(p.json, peak_truth.json);
    EXPECT_TRUE(p.from_checkpoint);
  }

  // Stale: the trace's time changed (as if it were written again).
  struct timeval times[2] = {{1000000, 0}, {1000000, 0}};
  ASSERT_EQ(utimes(trace.c_str(), times), 0);
  IndexKey key;
  std::string why;
  ASSERT_TRUE(KeyOf(trace, &key, &why));
  TraceIndex index;
  EXPECT_EQ(index.Open(trace, key, &why), TraceIndex::Status::kStale);
  const Answer a = Ask({"--leaks", "--at", label}, trace);
  EXPECT_EQ(a.text, truth.text);
  EXPECT_TRUE(a.from_checkpoint);
  EXPECT_EQ(index.Open(trace, key, &why), TraceIndex::Status::kOk) << why;
}

TEST(IndexTest, ALabelTheTraceLacksIsTheSameError) {
  const std::string trace =
      WriteTrace(format::testing::SampleTraceBytes(5000, 499, 3, nullptr), "e.zst");
  Ask({"--index"}, trace);
  const Answer with = Ask({"--leaks", "--at", "no-such-marker"}, trace);
  EXPECT_NE(with.text.find("no marker 'no-such-marker'"), std::string::npos) << with.text;
  EXPECT_EQ(with.text, Ask({"--leaks", "--at", "no-such-marker", "--no-index"}, trace).text);
}

}  // namespace
}  // namespace heaprec::heapreplay
