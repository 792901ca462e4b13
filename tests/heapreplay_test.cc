// heapreplay end to end: the README's example (leak_demo recorded by heaprec)
// reports exactly its leak, as text and as DESIGN.md's JSON; bad input gets
// one line naming the file and a non-zero exit; a truncated trace is analysed
// up to the cut with a warning.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/e2e_util.h"

namespace heaprec::tests {
namespace {

std::string Heapreplay() { return Runfile("replay/heapreplay"); }

std::string RecordLeakDemo() {
  const std::string dir = MakeTempDir("heapreplay");
  const std::string trace = dir + "/leak_demo.zst";
  const ProcessResult run = RunHeaprec(trace, {Runfile("tests/leak_demo")});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return trace;
}

size_t Lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

TEST(HeapreplayTest, LeakReportOfTheReadmeExample) {
  const std::string trace = RecordLeakDemo();
  const ProcessResult r = RunProgram({Heapreplay(), "--leaks", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("leaked 640 B in 10 blocks from 1 call stacks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("make_session  tests/programs/leak_demo.c:"), std::string::npos) << r.out;
}

TEST(HeapreplayTest, JsonFollowsTheContract) {
  const std::string trace = RecordLeakDemo();
  const ProcessResult r = RunProgram({Heapreplay(), "--leaks", "--json", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["trace"]["path"], trace);
  EXPECT_EQ(j["trace"]["truncated"], false);
  EXPECT_GE(j["trace"]["format_version"].get<int>(), 1);
  EXPECT_GT(j["trace"]["pid"].get<int>(), 0);
  const auto& s = j["summary"];
  // leak_demo.c: 10 sessions + 100 requests + calloc, realloc in place or moved.
  EXPECT_GE(s["allocations"].get<int>(), 111);
  EXPECT_EQ(s["leaked_bytes"], 640);
  EXPECT_EQ(s["leaked_blocks"], 10);
  EXPECT_GE(s["temporaries"].get<int>(), 100);
  EXPECT_GE(s["peak_bytes"].get<int>(), 640 + 256);
  for (const char* key : {"frees", "bytes_allocated", "duration_ns"}) {
    EXPECT_TRUE(s.contains(key)) << key;
  }
  const auto& leaks = j["leaks"];
  EXPECT_EQ(leaks["bytes"], 640);
  EXPECT_EQ(leaks["blocks"], 10);
  ASSERT_EQ(leaks["sites"].size(), 1u);
  const auto& site = leaks["sites"][0];
  EXPECT_EQ(site["bytes"], 640);
  EXPECT_EQ(site["count"], 10);
  const auto& frame = site["stack"][0];
  EXPECT_EQ(frame["function"], "make_session");
  EXPECT_EQ(frame["file"], "tests/programs/leak_demo.c");
  EXPECT_TRUE(frame["line"].is_number());
  EXPECT_EQ(frame["module"], "leak_demo");
  EXPECT_EQ(frame["address"].get<std::string>().rfind("0x", 0), 0u);
  EXPECT_EQ(frame["inlined"], false);
  EXPECT_EQ(site["stack"][1]["function"], "main");
}

TEST(HeapreplayTest, BadInputIsOneLineNamingTheFile) {
  const std::string dir = MakeTempDir("bad");
  const std::string garbage = dir + "/garbage.zst";
  std::ofstream(garbage) << "this is not a trace at all";
  const std::string empty = dir + "/empty.zst";
  std::ofstream(empty).flush();
  const struct {
    std::string path, says;
  } cases[] = {
      {dir + "/missing.zst", "cannot open: No such file or directory"},
      {dir, "cannot open: is a directory"},
      {garbage, "not a heaprec trace"},
      {empty, "empty file"},
  };
  for (const auto& c : cases) {
    const ProcessResult r = RunProgram({Heapreplay(), "--leaks", c.path});
    EXPECT_EQ(r.exit_code, 1) << c.path;
    EXPECT_EQ(Lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("heapreplay: " + c.path + ": ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
  const ProcessResult usage = RunProgram({Heapreplay(), "--bogus"});
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_EQ(Lines(usage.err), 1u);
}

TEST(HeapreplayTest, TruncatedTraceWarnsAndExitsZero) {
  const std::string trace = RecordLeakDemo();
  std::ifstream in(trace, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = trace + ".cut.zst";
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() - 10);
  const ProcessResult r = RunProgram({Heapreplay(), "--leaks", "--json", cut});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("truncated"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(cut), std::string::npos) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["trace"]["truncated"], true);
}

}  // namespace
}  // namespace heaprec::tests
