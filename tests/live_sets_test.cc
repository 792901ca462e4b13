// What heapreplay says is live at a moment, end to end on live_sets.c (its
// numbers in the program's header comment): the peak's live set (30000 B in 3
// blocks from keep()) differs from the end's (keep 10000 + tail 100).
// --peak --pprof writes the peak's live set as inuse_*, its total the peak
// the report gives; --at T (a time inside the pause after the peak) draws the
// live set at T in --folded, --flamegraph and --pprof; --leaks --at T says
// "live at T", never leaked, in text and JSON. The --pprof files are read back
// with zlib and the profile.proto classes, as pprof reads them.
#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analyzers/profile.pb.h"
#include "tests/e2e_util.h"

namespace heaprec::tests {
namespace {

namespace pb = perftools::profiles;

std::string Heapreplay() { return Runfile("replay/heapreplay"); }

// live_sets.c recorded once per test binary run.
std::string Trace() {
  static const std::string trace = [] {
    const std::string t = MakeTempDir("live_sets") + "/live_sets.zst";
    const ProcessResult run = RunHeaprec(t, {Runfile("tests/live_sets")});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.out, "live_sets: ok\n");
    return t;
  }();
  return trace;
}

ProcessResult Replay(const std::vector<std::string>& args) {
  std::vector<std::string> command = {Heapreplay()};
  command.insert(command.end(), args.begin(), args.end());
  command.push_back(Trace());
  ProcessResult r = RunProgram(command);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  return r;
}

nlohmann::json Json(std::vector<std::string> args) {
  args.insert(args.begin(), "--json");
  return nlohmann::json::parse(Replay(args).out);
}

// A time inside live_sets' pause after the peak, as --at takes it: 250 ms
// after the peak, in microseconds.
std::string InThePause() {
  const nlohmann::json j = Json({"--peak"});
  return std::to_string(j["peak"]["time_ns"].get<uint64_t>() / 1000 + 250000) + "us";
}

// A profile's sample values summed by sample type, and by innermost function
// (type "function/inuse_space").
std::map<std::string, int64_t> PprofTotals(const std::string& path) {
  std::map<std::string, int64_t> totals;
  gzFile f = gzopen(path.c_str(), "rb");
  EXPECT_NE(f, nullptr) << path;
  if (f == nullptr) return totals;
  std::string raw;
  char buf[4096];
  int n;
  while ((n = gzread(f, buf, sizeof(buf))) > 0) raw.append(buf, n);
  gzclose(f);
  pb::Profile p;
  EXPECT_TRUE(p.ParseFromString(raw)) << path;
  std::map<uint64_t, std::string> function_of_location;
  std::map<uint64_t, std::string> function_names;
  for (const pb::Function& fn : p.function()) function_names[fn.id()] = p.string_table(fn.name());
  for (const pb::Location& l : p.location()) {
    // The last line of a location is the function it is in (inlined first).
    if (l.line_size() > 0) {
      function_of_location[l.id()] = function_names[l.line(l.line_size() - 1).function_id()];
    }
  }
  for (const pb::Sample& s : p.sample()) {
    EXPECT_EQ(s.value_size(), p.sample_type_size());
    const std::string leaf =
        s.location_id_size() > 0 ? function_of_location[s.location_id(0)] : "(none)";
    for (int i = 0; i < s.value_size() && i < p.sample_type_size(); ++i) {
      const std::string type = p.string_table(p.sample_type(i).type());
      totals[type] += s.value(i);
      if (s.value(i) != 0) totals[leaf + "/" + type] += s.value(i);
    }
  }
  return totals;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

TEST(LiveSetsTest, PeakPprofIsThePeaksLiveSet) {
  const nlohmann::json j = Json({"--peak"});
  EXPECT_EQ(j["peak"]["bytes"], 30000);
  EXPECT_EQ(j["peak"]["blocks"], 3);
  const std::string text = Replay({"--peak"}).out;
  EXPECT_NE(text.find("peak 29.3 KiB in 3 blocks at"), std::string::npos) << text;

  const std::string file = MakeTempDir("pprof") + "/peak.pb.gz";
  Replay({"--peak", "--pprof", file});
  std::map<std::string, int64_t> t = PprofTotals(file);
  EXPECT_EQ(t["inuse_space"], j["peak"]["bytes"].get<int64_t>());
  EXPECT_EQ(t["inuse_objects"], 3);
  EXPECT_EQ(t["keep/inuse_space"], 30000);
  EXPECT_EQ(t["tail/inuse_space"], 0);  // allocated after the peak
  // Allocations are the whole trace's either way.
  EXPECT_EQ(t["alloc_space"], 30600);
  EXPECT_EQ(t["alloc_objects"], 5);
  EXPECT_EQ(t["tail/alloc_space"], 100);
}

TEST(LiveSetsTest, PprofWithoutPeakIsLiveAtTheEndWhateverKindsAreShown) {
  // The end's blocks are still reachable, a kind --leaks hides by default:
  // inuse still holds every live block.
  const std::string file = MakeTempDir("pprof") + "/end.pb.gz";
  Replay({"--leaks", "--pprof", file});
  std::map<std::string, int64_t> t = PprofTotals(file);
  EXPECT_EQ(t["inuse_space"], 10100);
  EXPECT_EQ(t["inuse_objects"], 2);
  EXPECT_EQ(t["keep/inuse_space"], 10000);
  EXPECT_EQ(t["tail/inuse_space"], 100);
}

TEST(LiveSetsTest, DrawingsFollowAt) {
  const std::string at = InThePause();
  const std::string dir = MakeTempDir("drawn");

  // --folded: the live set at T, one stack (scratch's block was allocated
  // before T but is not live).
  const std::string folded = Replay({"--at", at, "--folded"}).out;
  EXPECT_EQ(folded.find('\n'), folded.size() - 1) << folded;
  EXPECT_NE(folded.find(";main;keep 30000\n"), std::string::npos) << folded;
  const std::string blocks = Replay({"--at", at, "--folded", "--metric", "count"}).out;
  EXPECT_NE(blocks.find(";main;keep 3\n"), std::string::npos) << blocks;
  // The same with --leaks (the kinds are unknown at T: every live site).
  EXPECT_EQ(Replay({"--leaks", "--at", at, "--folded"}).out, folded);
  // --peak draws the peak's live set; at the end it is the same one.
  EXPECT_EQ(Replay({"--peak", "--folded"}).out, folded);
  // Without --at: live at the end is not the peak's set.
  const std::string end = Replay({"--leaks", "--leak-kinds=all", "--folded"}).out;
  EXPECT_NE(end.find(";main;keep 10000\n"), std::string::npos) << end;
  EXPECT_NE(end.find(";main;tail 100\n"), std::string::npos) << end;

  // --flamegraph: the same set, titled live at T.
  Replay({"--at", at, "--flamegraph", dir + "/at.svg"});
  const std::string svg = ReadFile(dir + "/at.svg");
  EXPECT_NE(svg.find("Bytes live at " + at), std::string::npos);
  EXPECT_NE(svg.find("<title>keep"), std::string::npos);
  EXPECT_EQ(svg.find("<title>tail"), std::string::npos);
  EXPECT_EQ(svg.find("<title>scratch"), std::string::npos);
  EXPECT_EQ(svg.find("eaked"), std::string::npos);

  // --pprof: inuse is the live set at T.
  Replay({"--at", at, "--pprof", dir + "/at.pb.gz"});
  std::map<std::string, int64_t> t = PprofTotals(dir + "/at.pb.gz");
  EXPECT_EQ(t["inuse_space"], 30000);
  EXPECT_EQ(t["inuse_objects"], 3);
  EXPECT_EQ(t["tail/inuse_space"], 0);
  EXPECT_EQ(t["scratch/inuse_space"], 0);
  EXPECT_EQ(t["scratch/alloc_space"], 500);
}

TEST(LiveSetsTest, LeaksAtTSaysLiveNeverLeaked) {
  const std::string at = InThePause();
  const std::string text = Replay({"--leaks", "--at", at}).out;
  EXPECT_NE(
      text.find("live at " + at + ": 29.3 KiB in 3 blocks; kinds unknown: no leak scan by " + at),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("29.3 KiB in 3 blocks, live, kind unknown, allocated at:"), std::string::npos)
      << text;
  EXPECT_NE(text.find("live then 29.3 KiB in 3 blocks"), std::string::npos) << text;
  for (const char* word : {"leaked", "Leaked", "not freed", "lost"}) {
    EXPECT_EQ(text.find(word), std::string::npos) << word << "\n" << text;
  }

  const nlohmann::json j = Json({"--leaks", "--at", at});
  EXPECT_EQ(j["at"]["reached"], true);
  EXPECT_EQ(j["at"]["live_bytes"], 30000);
  EXPECT_EQ(j["at"]["live_blocks"], 3);
  EXPECT_EQ(j["leaks"]["live_at"], at);
  EXPECT_EQ(j["leaks"]["bytes"], 30000);

  // At the end the same report speaks of what was not freed.
  const std::string end = Replay({"--leaks"}).out;
  EXPECT_NE(end.find("not freed at the end: 9.9 KiB in 2 blocks"), std::string::npos) << end;
  EXPECT_EQ(Json({"--leaks"})["leaks"]["live_at"], "end");
  // A time after the trace's end is not reached: the end's words.
  const std::string after = Replay({"--leaks", "--at", "1000s"}).out;
  EXPECT_NE(after.find("not freed at the end: 9.9 KiB in 2 blocks"), std::string::npos) << after;
  EXPECT_EQ(Json({"--leaks", "--at", "1000s"})["leaks"]["live_at"], "end");
}

}  // namespace
}  // namespace heaprec::tests
