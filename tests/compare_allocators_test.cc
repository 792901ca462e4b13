// heaprec --compare-allocators end to end: the program itself run under
// each allocator, round by round; every allocator's row with its numbers,
// the JSON shape, the program's own memory in max RSS, a run that fails
// under one allocator only reported (and heaprec exiting 1), a program that
// fails the same way everywhere not called a failure, and its output
// discarded unless kept.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "tests/e2e_util.h"

namespace heaprec::tests {
namespace {

const char* const kAllocators[] = {"glibc", "tcmalloc", "jemalloc", "mimalloc"};

std::vector<std::string> Compare(const std::vector<std::string>& options,
                                 const std::vector<std::string>& program) {
  std::vector<std::string> argv = {Runfile("recorder/heaprec"), "--compare-allocators"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.insert(argv.end(), program.begin(), program.end());
  return argv;
}

std::string Probe() { return Runfile("tests/allocator_probe"); }

TEST(CompareAllocatorsTest, TextHasEachAllocatorsRowWithNumbers) {
  const ProcessResult r = RunProgram(Compare({"--rounds", "3"}, {Probe()}));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  for (const char* name : kAllocators) {
    // name, wall, cpu, max RSS, runs 3, failed 0
    const std::regex row(std::string("\n") + name +
                         " +[0-9.]+ m?s +[0-9.]+ m?s +[0-9.]+ [KM]iB +3 +0\n");
    EXPECT_TRUE(std::regex_search(r.out, row)) << name << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("vs glibc, round by round (X - glibc: median of 3 paired run(s)"),
            std::string::npos)
      << r.out;
  for (const char* name : {"tcmalloc", "jemalloc", "mimalloc"}) {
    EXPECT_NE(r.out.find(std::string("  ") + name + "\n    wall      "), std::string::npos) << name;
  }
  EXPECT_NE(r.out.find("its output went to /dev/null"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("runs of the real program"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("round 3 of 3"), std::string::npos) << r.err;
}

TEST(CompareAllocatorsTest, JsonShapeAndTheProgramsOwnMemory) {
  const ProcessResult r = RunProgram(Compare({"--rounds", "3", "--json", "-q"}, {Probe()}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // -q: no progress lines
  const nlohmann::json j = nlohmann::json::parse(r.out)["compare_allocators"];
  EXPECT_EQ(j["rounds"], 3);
  EXPECT_EQ(j["reference"], "glibc");
  EXPECT_EQ(j["program_output"], "discarded");
  EXPECT_EQ(j["command"], nlohmann::json{Probe()});
  EXPECT_EQ(j["difference"]["confidence"], 0.9);
  EXPECT_EQ(j["failures"].size(), 0u);
  ASSERT_EQ(j["orders"].size(), 3u);
  EXPECT_EQ(j["orders"][1][0], "tcmalloc");  // rotated
  ASSERT_EQ(j["allocators"].size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    const nlohmann::json& a = j["allocators"][i];
    EXPECT_EQ(a["name"], kAllocators[i]);
    EXPECT_EQ(a["runs"], 3);
    EXPECT_EQ(a["failed_runs"], 0);
    EXPECT_EQ(a["exit_codes"], (nlohmann::json{0, 0, 0}));
    EXPECT_GT(a["wall_s"].get<double>(), 0.0);
    EXPECT_GE(a["wall_s_max"].get<double>(), a["wall_s"].get<double>());
    EXPECT_LE(a["wall_s_min"].get<double>(), a["wall_s"].get<double>());
    // The probe holds about 6 MiB at once, touched: its max RSS shows it.
    EXPECT_GT(a["max_rss_bytes"].get<uint64_t>(), uint64_t(5) << 20) << a["name"];
    if (i == 0) {
      EXPECT_TRUE(a["library"].is_null());
      EXPECT_TRUE(a["vs_reference"].is_null());
      continue;
    }
    EXPECT_TRUE(a["library"].is_string());
    for (const char* key : {"wall_s", "cpu_s", "max_rss_bytes"}) {
      const nlohmann::json& d = a["vs_reference"][key];
      EXPECT_EQ(d["pairs"], 3) << key;
      EXPECT_LE(d["low"].get<double>(), d["median"].get<double>()) << key;
      EXPECT_GE(d["high"].get<double>(), d["median"].get<double>()) << key;
      EXPECT_TRUE(d["beyond_noise"].is_boolean()) << key;
    }
  }
}

TEST(CompareAllocatorsTest, RunThatFailsUnderOneAllocatorIsReported) {
  // The probe exits 3 where jemalloc's mallctl is defined.
  const std::vector<std::string> program = {Probe(), "mallctl", "3"};
  ProcessResult r =
      RunProgram(Compare({"--rounds", "2", "--allocators", "glibc,jemalloc"}, program));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("failed runs (exit code not glibc's in the same round):\n"
                       "  jemalloc, round 1: exit 3 (glibc: exit 0)\n"
                       "  jemalloc, round 2: exit 3 (glibc: exit 0)\n"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\njemalloc +[0-9.]+ m?s .* 2 +2\n"))) << r.out;
  r = RunProgram(
      Compare({"--rounds", "2", "--allocators", "glibc,jemalloc", "--json", "-q"}, program));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out)["compare_allocators"];
  ASSERT_EQ(j["failures"].size(), 2u);
  EXPECT_EQ(
      j["failures"][0],
      (nlohmann::json{
          {"allocator", "jemalloc"}, {"round", 1}, {"exit_code", 3}, {"reference_exit_code", 0}}));
  EXPECT_EQ(j["allocators"][1]["failed_runs"], 2);
  EXPECT_EQ(j["allocators"][1]["vs_reference"]["wall_s"]["pairs"], 0);
}

TEST(CompareAllocatorsTest, SameExitCodeEverywhereIsNoFailure) {
  // malloc is defined under every allocator: every run exits 5.
  const ProcessResult r =
      RunProgram(Compare({"--rounds", "2", "--allocators", "glibc,mimalloc", "--json", "-q"},
                         {Probe(), "malloc", "5"}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out)["compare_allocators"];
  EXPECT_EQ(j["failures"].size(), 0u);
  EXPECT_EQ(j["allocators"][1]["exit_codes"], (nlohmann::json{5, 5}));
  EXPECT_EQ(j["allocators"][1]["vs_reference"]["wall_s"]["pairs"], 2);
}

TEST(CompareAllocatorsTest, OutputIsDiscardedUnlessKept) {
  // The line printed is not on the command line (which the report repeats).
  const std::vector<std::string> echo = {"/bin/sh", "-c", "echo probe-output-$((6 * 7))"};
  ProcessResult r = RunProgram(Compare({"--rounds", "1", "--allocators", "glibc", "-q"}, echo));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("probe-output-42"), std::string::npos) << r.out;
  r = RunProgram(Compare({"--rounds", "1", "--allocators", "glibc", "--keep-output", "-q"}, echo));
  EXPECT_EQ(r.out.rfind("probe-output-42\n", 0), 0u) << r.out;
  // With --json, stdout holds the JSON alone; the program's goes to stderr.
  r = RunProgram(
      Compare({"--rounds", "1", "--allocators", "glibc", "--keep-output", "--json", "-q"}, echo));
  EXPECT_EQ(r.err, "probe-output-42\n");
  EXPECT_EQ(nlohmann::json::parse(r.out)["compare_allocators"]["program_output"], "stderr");
}

TEST(CompareAllocatorsTest, BadInputIsOneLine) {
  ProcessResult r = RunProgram(Compare({"--rounds", "1"}, {"/nonexistent/app"}));
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_EQ(r.err,
            "heaprec: --compare-allocators: round 1 of 1\n"
            "heaprec: cannot run '/nonexistent/app': No such file or directory\n");
  r = RunProgram(Compare({"--allocators", "glibc,hoard"}, {Probe()}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown allocator 'hoard'"), std::string::npos) << r.err;
  r = RunProgram(Compare({"--allocators", "glibc,/nonexistent/libfoo.so"}, {Probe()}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "heaprec: libfoo.so: /nonexistent/libfoo.so is missing; nothing was run\n");
}

}  // namespace
}  // namespace heaprec::tests
