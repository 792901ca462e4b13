// Frames across runs and symbols from every source, end to end: the
// `symbols` program (tests/programs/symbols.c, built -g as a PIE) and copies
// of it made here with binutils as distributions ship programs; each recorded
// by heaprec and read by heapreplay.
//  - Two runs of one program diff to nothing, also when it is stripped: a
//    frame without a name is its module and offset, never its address.
//  - A stripped frame reads MODULE+0xOFFSET, and the offset is what
//    `addr2line -e MODULE` takes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/e2e_util.h"

namespace heaprec::tests {
namespace {

using nlohmann::json;

std::string Heapreplay() { return Runfile("replay/heapreplay"); }

// heapreplay args...: its stdout, the test failed unless it exits 0.
std::string Replay(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {Heapreplay()};
  argv.insert(argv.end(), args.begin(), args.end());
  const ProcessResult r = RunProgram(argv);
  EXPECT_EQ(r.exit_code, 0) << Join(argv) << "\n" << r.err;
  return r.out;
}

json ReplayJson(const std::vector<std::string>& args) {
  std::vector<std::string> with_json = args;
  with_json.insert(with_json.begin(), "--json");
  const std::string out = Replay(with_json);
  return out.empty() ? json() : json::parse(out);
}

// Runs a tool of binutils; the test fails unless it exits 0.
std::string Tool(const std::vector<std::string>& argv) {
  const ProcessResult r = RunProgram(argv);
  EXPECT_EQ(r.exit_code, 0) << Join(argv) << "\n" << r.err;
  return r.out;
}

// A copy of the symbols program at dir/symbols (so that its module is named
// "symbols" whatever the copy), made with `strip args...` when args are given.
std::string CopyOfSymbols(const std::string& dir, const std::vector<std::string>& strip_args) {
  const std::string program = dir + "/symbols";
  Tool({"/bin/cp", Runfile("tests/symbols"), program});
  if (!strip_args.empty()) {
    std::vector<std::string> argv = {"/usr/bin/strip"};
    argv.insert(argv.end(), strip_args.begin(), strip_args.end());
    argv.push_back(program);
    Tool(argv);
  }
  return program;
}

// Records program once into dir/NAME.zst.
std::string RecordTo(const std::string& dir, const std::string& name,
                     const std::vector<std::string>& argv) {
  const std::string trace = dir + "/" + name + ".zst";
  const ProcessResult run = RunHeaprec(trace, argv);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return trace;
}

// The leak site whose stack holds `bytes` (the program's sites differ in size).
const json* LeakSite(const json& report, int bytes) {
  for (const json& site : report["leaks"]["sites"]) {
    if (site["bytes"] == bytes) return &site;
  }
  return nullptr;
}

TEST(SymbolsTest, TwoRunsOfOneProgramDiffToNothing) {
  for (const bool stripped : {false, true}) {
    SCOPED_TRACE(stripped ? "stripped" : "with symbols");
    const std::string sub = MakeTempDir(stripped ? "stripped" : "full");
    const std::string program = CopyOfSymbols(
        sub, stripped ? std::vector<std::string>{"--strip-all"} : std::vector<std::string>{});
    const std::string a = RecordTo(sub, "a", {program}), b = RecordTo(sub, "b", {program});
    const json diff = ReplayJson({"--diff", "--base", a, b});
    EXPECT_EQ(diff["diff"]["sites"], json::array()) << diff["diff"].dump(1);
    EXPECT_EQ(diff["diff"]["bytes"], 0);
    const std::string text = Replay({"--diff", "--base", a, b});
    EXPECT_NE(text.find("grew by 0 B"), std::string::npos) << text;
    EXPECT_EQ(text.find("#1"), std::string::npos) << text;
    // Nothing because both runs left the same: the program's two leaks.
    EXPECT_EQ(ReplayJson({b})["summary"]["leaked_bytes"], 1024 + 2000);
  }
}

TEST(SymbolsTest, AStrippedFrameIsModuleAndOffsetAsAddr2lineTakesIt) {
  const std::string dir = MakeTempDir("stripped");
  const std::string program = CopyOfSymbols(dir, {"--strip-all"});
  const std::string trace = RecordTo(dir, "t", {program});
  const json j = ReplayJson({"--leaks", "--leak-kinds=all", trace});
  const json* table = LeakSite(j, 1024);  // make_table's 4 rows
  ASSERT_NE(table, nullptr) << j["leaks"].dump(1);
  ASSERT_GE((*table)["stack"].size(), 3u);
  // fill_row <- make_table <- main, each named by the unstripped program.
  const char* want[] = {"fill_row", "make_table", "main"};
  std::vector<std::string> names;
  for (size_t i = 0; i < 3; ++i) {
    const json& frame = (*table)["stack"][i];
    EXPECT_EQ(frame["function"], "??") << frame;
    EXPECT_EQ(frame["module"], "symbols") << frame;
    ASSERT_TRUE(frame["offset"].is_string()) << frame;
    const std::string offset = frame["offset"];
    const uint64_t address = std::stoull(frame["address"].get<std::string>(), nullptr, 16);
    const uint64_t off = std::stoull(offset, nullptr, 16);
    EXPECT_NE(address, off) << "a PIE is loaded above 0";
    // The call instruction is just before the return address.
    char call[32];
    std::snprintf(call, sizeof call, "0x%llx", static_cast<unsigned long long>(off - 1));
    const std::string where =
        Tool({"/usr/bin/addr2line", "-f", "-e", Runfile("tests/symbols"), call});
    EXPECT_EQ(where.substr(0, where.find('\n')), want[i]) << offset << "\n" << where;
    names.push_back("symbols+" + offset);
  }
  // Every text-like output names it so.
  const std::string text = Replay({"--leaks", "--leak-kinds=all", trace});
  const std::string folded = Replay({"--leaks", "--leak-kinds=all", "--folded", trace});
  const std::string svg_path = dir + "/leaks.svg";
  Replay({"--leaks", "--leak-kinds=all", "--flamegraph", svg_path, trace});
  const std::string svg = Tool({"/bin/cat", svg_path});
  for (const std::string& name : names) {
    EXPECT_NE(text.find("      " + name + "\n"), std::string::npos) << name << "\n" << text;
    EXPECT_NE(folded.find(name), std::string::npos) << name << "\n" << folded;
    EXPECT_NE(svg.find(name), std::string::npos) << name;
  }
  EXPECT_EQ(text.find("??"), std::string::npos) << text;
}

}  // namespace
}  // namespace heaprec::tests
