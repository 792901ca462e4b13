// The trace index end to end (heapreplay/index_use.h): heapreplay --index
// writes TRACE.hri beside a recorded trace, questions about moments late in
// it (--leaks --at a time or a marker, --diff --from/--to, --leaks, the
// overview, --peak, --hot and --temporaries at a moment) print
// exactly what they print without it (--no-index), a stale index is
// ignored with one line on stderr and rebuilt, and a trace whose folder
// cannot hold an index is still answered.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/e2e_util.h"

namespace heaprec::tests {
namespace {

std::string Heapreplay() { return Runfile("replay/heapreplay"); }

std::string Record(const std::string& program, const std::vector<std::string>& args) {
  const std::string dir = MakeTempDir("trace_index");
  const std::string trace = dir + "/" + program + ".zst";
  std::vector<std::string> argv = {Runfile("tests/" + program)};
  argv.insert(argv.end(), args.begin(), args.end());
  const ProcessResult run = RunHeaprec(trace, argv);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return trace;
}

ProcessResult Ask(std::vector<std::string> args, const std::string& trace) {
  args.insert(args.begin(), Heapreplay());
  args.push_back(trace);
  return RunProgram(args);
}

// The question answers the same with the index and without.
void ExpectSame(const std::vector<std::string>& q, const std::string& trace) {
  std::vector<std::string> plain = q;
  plain.push_back("--no-index");
  const ProcessResult with = Ask(q, trace), without = Ask(plain, trace);
  ASSERT_EQ(without.exit_code, 0) << without.err;
  EXPECT_EQ(with.exit_code, 0) << with.err;
  EXPECT_EQ(with.out, without.out) << Join(q);
  EXPECT_EQ(with.err, "") << Join(q);
}

TEST(TraceIndexTest, ARecordedTraceAnswersTheSameWithItsIndex) {
  const std::string trace = Record("churn", {"concurrent"});
  const ProcessResult index = Ask({"--index"}, trace);
  ASSERT_EQ(index.exit_code, 0) << index.err;
  EXPECT_EQ(index.out, "");
  EXPECT_NE(index.err.find("wrote index " + trace + ".hri"), std::string::npos) << index.err;
  struct stat st;
  ASSERT_EQ(stat((trace + ".hri").c_str(), &st), 0);

  const ProcessResult summary = Ask({"--json", "--no-index"}, trace);
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  const uint64_t duration =
      nlohmann::json::parse(summary.out)["summary"]["duration_ns"].get<uint64_t>();
  ASSERT_GT(duration, 0u);
  for (int tenth : {1, 5, 9, 10}) {
    const std::string t = std::to_string(duration / 10 * tenth) + "ns";
    ExpectSame({"--leaks", "--at", t}, trace);
    ExpectSame({"--leaks", "--json", "--at", t}, trace);
    ExpectSame({"--diff", "--from", t}, trace);
  }
  ExpectSame({"--leaks"}, trace);
  const std::string middle = std::to_string(duration / 2) + "ns";
  ExpectSame({"--leaks", "--peak", "--temporaries", "--at", middle}, trace);
  // The overview, the peak and hot sites start from a checkpoint too (the
  // JSON of hot sites holds lifetimes: that one reads the whole trace).
  ExpectSame({"--at", middle}, trace);
  ExpectSame({"--at", middle, "--json"}, trace);
  ExpectSame({"--peak", "--json", "--at", middle}, trace);
  ExpectSame({"--hot", "--temporaries", "--json", "--at", middle}, trace);
  ExpectSame({}, trace);

  // Stale: the trace's time changed (as if it were written again).
  struct timeval times[2] = {{1000000, 0}, {1000000, 0}};
  ASSERT_EQ(utimes(trace.c_str(), times), 0);
  const std::vector<std::string> late = {"--leaks", "--at",
                                         std::to_string(duration / 10 * 9) + "ns"};
  const ProcessResult stale = Ask(late, trace);
  EXPECT_EQ(stale.exit_code, 0) << stale.err;
  EXPECT_EQ(stale.err, "heapreplay: ignoring index " + trace +
                           ".hri: the trace changed since it was indexed; rebuilding it\n");
  ExpectSame(late, trace);  // rebuilt: no word on stderr
}

TEST(TraceIndexTest, MarkersOfARecordedTrace) {
  const std::string trace = Record("phases", {});
  ASSERT_EQ(Ask({"--index"}, trace).exit_code, 0);
  ExpectSame({"--leaks", "--at", "loaded"}, trace);
  ExpectSame({"--leaks", "--at", "worked"}, trace);
  ExpectSame({"--diff", "--from", "loaded", "--to", "worked"}, trace);
  ExpectSame({"--leaks"}, trace);
}

}  // namespace
}  // namespace heaprec::tests
