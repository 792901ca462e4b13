// Frames across runs and symbols from every source, end to end: the
// `symbols` program (tests/programs/symbols.c, built -g as a PIE) and copies
// of it made here with binutils as distributions ship programs; each recorded
// by heaprec and read by heapreplay.
//  - Two runs of one program diff to nothing, also when it is stripped: a
//    frame without a name is its module and offset, never its address.
//  - A stripped frame reads MODULE+0xOFFSET, and the offset is what
//    `addr2line -e MODULE` takes.
//  - Names come from every source a user has: the module's .symtab without
//    DWARF, its MiniDebugInfo (.gnu_debugdata), a separate debug file by
//    build-id or by .gnu_debuglink, also brought later to heapreplay
//    --debug-dir; what none of them names is reported per module, frames
//    counted exactly (text, JSON "symbols", the HTML page), also for the
//    system's stripped git.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
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
std::string CopyOfSymbols(const std::string& dir, const std::vector<std::string>& strip_args,
                          const std::string& build = "tests/symbols") {
  const std::string program = dir + "/symbols";
  Tool({"/bin/cp", Runfile(build), program});
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

// The symbols program's frames in its own module, as the unstripped program
// names them: fill_row -> malloc, make_table -> fill_row, main -> make_table,
// make_name -> malloc, main -> make_name, keep_buffer -> calloc,
// main -> keep_buffer, and _start -> __libc_start_main: 8 return addresses.
constexpr int kOwnFrames = 8;

// The GNU build-id of an ELF file, lowercase hex (readelf -n).
std::string BuildId(const std::string& file) {
  const std::string notes = Tool({"/usr/bin/readelf", "-n", file});
  const std::string key = "Build ID: ";
  const size_t at = notes.find(key);
  if (at == std::string::npos) return "";
  const size_t start = at + key.size();
  return notes.substr(start, notes.find('\n', start) - start);
}

// The functions heapreplay names in the symbols module over all leak sites
// (every kind), and how many frames there are in it.
std::set<std::string> OwnFunctions(const json& report, int* frames = nullptr) {
  std::set<std::string> names;
  std::set<std::string> offsets;
  for (const json& site : report["leaks"]["sites"]) {
    for (const json& f : site["stack"]) {
      if (f["module"] != "symbols") continue;
      names.insert(f["function"].get<std::string>());
      offsets.insert(f["offset"].get<std::string>());
    }
  }
  if (frames != nullptr) *frames = static_cast<int>(offsets.size());
  return names;
}

// The "symbols.missing" entry of a module, or null.
json MissingOf(const json& report, const std::string& module) {
  for (const json& m : report["symbols"]["missing"]) {
    if (m["module"] == module) return m;
  }
  return json();
}

const std::set<std::string> kNamed = {"fill_row",    "make_table", "make_name",
                                      "keep_buffer", "main",       "_start"};

std::string DebugFileOf(const std::string& dir, const std::string& name) {
  const std::string debug = dir + "/" + name;
  Tool({"/usr/bin/objcopy", "--only-keep-debug", Runfile("tests/symbols"), debug});
  return debug;
}

TEST(SymbolsTest, AStrippedModuleIsReportedWithItsFramesCountedExactly) {
  const std::string dir = MakeTempDir("missing");
  const std::string program = CopyOfSymbols(dir, {"--strip-all"});
  const std::string trace = RecordTo(dir, "t", {program});
  const json j = ReplayJson({"--leaks", "--leak-kinds=all", trace});
  int frames = 0;
  EXPECT_EQ(OwnFunctions(j, &frames), std::set<std::string>{"??"});
  EXPECT_EQ(frames, kOwnFrames - 2);  // make_name's two frames are in no leak site
  const json m = MissingOf(j, "symbols");
  ASSERT_TRUE(m.is_object()) << j["symbols"].dump(1);
  EXPECT_EQ(m["frames"], kOwnFrames) << m;
  EXPECT_EQ(m["path"], program);
  EXPECT_EQ(m["build_id"], BuildId(program));
  const std::string text = Replay({trace});
  const std::string line = "symbols: no symbols for ";
  const size_t at = text.find(line);
  ASSERT_NE(at, std::string::npos) << text;
  const std::string want =
      "symbols (build-id " + BuildId(program) + ", " + std::to_string(kOwnFrames) + " frames)";
  EXPECT_NE(text.find(want, at), std::string::npos) << text;
  EXPECT_NE(text.find("-dbgsym", at), std::string::npos) << text;
  EXPECT_NE(text.find("--debug-dir DIR", at), std::string::npos) << text;
  // The HTML page says it too (its data's "symbols" and a warning).
  const std::string page = dir + "/t.html";
  Replay({"--html", page, trace});
  std::ifstream in(page);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("\"frames\":" + std::to_string(kOwnFrames)), std::string::npos);
  EXPECT_NE(html.find("Symbols: no symbols for"), std::string::npos);
}

TEST(SymbolsTest, TheSymtabAloneNamesFunctions) {
  const std::string dir = MakeTempDir("symtab");
  const std::string program = CopyOfSymbols(dir, {"--strip-debug"});
  const std::string trace = RecordTo(dir, "t", {program});
  const json j = ReplayJson({"--leaks", "--leak-kinds=all", trace});
  EXPECT_EQ(OwnFunctions(j),
            (std::set<std::string>{"fill_row", "make_table", "keep_buffer", "main", "_start"}));
  EXPECT_TRUE(MissingOf(j, "symbols").is_null()) << j["symbols"].dump(1);
  // No DWARF: no file or line.
  const json* table = LeakSite(j, 1024);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ((*table)["stack"][0]["function"], "fill_row");
  EXPECT_TRUE((*table)["stack"][0]["file"].is_null()) << (*table)["stack"][0];
}

TEST(SymbolsTest, TheDynsymAloneNamesExportedFunctions) {
  // Stripped of .symtab and DWARF, the program's .dynsym still names what it
  // exports (main and _start: -rdynamic), never its static functions.
  const std::string dir = MakeTempDir("dynsym");
  const std::string program = CopyOfSymbols(dir, {"--strip-all"}, "tests/symbols_dynsym");
  const std::string trace = RecordTo(dir, "t", {program});
  const json j = ReplayJson({"--leaks", "--leak-kinds=all", trace});
  EXPECT_EQ(OwnFunctions(j), (std::set<std::string>{"??", "main", "_start"}));
  // main's three calls and _start's are named; the other 4 frames are not.
  EXPECT_EQ(MissingOf(j, "symbols")["frames"], kOwnFrames - 4) << j["symbols"].dump(1);
}

TEST(SymbolsTest, MiniDebugInfoNamesFunctions) {
  // As Fedora ships programs: stripped, with an xz-compressed ELF holding
  // the symbol table in .gnu_debugdata.
  const std::string dir = MakeTempDir("minidebuginfo");
  const std::string program = CopyOfSymbols(dir, {"--strip-all"});
  const std::string mini = DebugFileOf(dir, "mini");
  Tool({"/usr/bin/strip", "--strip-debug", "--remove-section=.comment", mini});
  Tool({"/usr/bin/xz", "--keep", mini});
  Tool({"/usr/bin/objcopy", "--add-section", ".gnu_debugdata=" + mini + ".xz", program});
  const std::string trace = RecordTo(dir, "t", {program});
  const json j = ReplayJson({"--leaks", "--leak-kinds=all", trace});
  EXPECT_EQ(OwnFunctions(j),
            (std::set<std::string>{"fill_row", "make_table", "keep_buffer", "main", "_start"}));
  EXPECT_TRUE(MissingOf(j, "symbols").is_null()) << j["symbols"].dump(1);
}

TEST(SymbolsTest, GnuDebuglinkBesideTheProgramOrInADebugDir) {
  const std::string dir = MakeTempDir("debuglink");
  const std::string program = CopyOfSymbols(dir, {"--strip-all"});
  const std::string debug = DebugFileOf(dir, "symbols-separate.debug");
  Tool({"/usr/bin/objcopy", "--add-gnu-debuglink=" + debug, program});
  // Beside the program when recorded: the recording names the frames.
  const std::string trace = RecordTo(dir, "t", {program});
  json j = ReplayJson({"--leaks", "--leak-kinds=all", trace});
  EXPECT_EQ(OwnFunctions(j),
            (std::set<std::string>{"fill_row", "make_table", "keep_buffer", "main", "_start"}));
  EXPECT_TRUE(MissingOf(j, "symbols").is_null()) << j["symbols"].dump(1);
  const json* table = LeakSite(j, 1024);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ((*table)["stack"][0]["file"], "tests/programs/symbols.c") << (*table)["stack"][0];
  // Recorded without it, then brought to heapreplay in another directory.
  const std::string elsewhere = MakeTempDir("brought");
  Tool({"/bin/mv", debug, elsewhere + "/symbols-separate.debug"});
  const std::string bare = RecordTo(dir, "bare", {program});
  EXPECT_EQ(MissingOf(ReplayJson({bare}), "symbols")["frames"], kOwnFrames);
  j = ReplayJson({"--leaks", "--leak-kinds=all", "--debug-dir", "/nonexistent:" + elsewhere, bare});
  EXPECT_EQ(OwnFunctions(j),
            (std::set<std::string>{"fill_row", "make_table", "keep_buffer", "main", "_start"}));
  EXPECT_TRUE(MissingOf(j, "symbols").is_null()) << j["symbols"].dump(1);
}

TEST(SymbolsTest, ASeparateDebugFileByBuildIdInADebugDir) {
  const std::string dir = MakeTempDir("buildid");
  const std::string program = CopyOfSymbols(dir, {"--strip-all"});
  const std::string trace = RecordTo(dir, "t", {program});
  EXPECT_EQ(MissingOf(ReplayJson({trace}), "symbols")["frames"], kOwnFrames);
  // As Debian's -dbgsym packages install it, under a directory of our own.
  const std::string id = BuildId(program);
  ASSERT_GT(id.size(), 2u);
  const std::string debug_dir = MakeTempDir("debug");
  const std::string sub = debug_dir + "/.build-id/" + id.substr(0, 2);
  Tool({"/bin/mkdir", "-p", sub});
  DebugFileOf(sub, id.substr(2) + ".debug");
  const json j = ReplayJson({"--leaks", "--leak-kinds=all", "--debug-dir", debug_dir, trace});
  EXPECT_EQ(OwnFunctions(j),
            (std::set<std::string>{"fill_row", "make_table", "keep_buffer", "main", "_start"}));
  EXPECT_TRUE(MissingOf(j, "symbols").is_null()) << j["symbols"].dump(1);
  const json* table = LeakSite(j, 1024);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ((*table)["stack"][0]["line"], 15) << (*table)["stack"][0];
  // The unstripped program by its name in the directory works too.
  const std::string by_name = MakeTempDir("byname");
  Tool({"/bin/cp", Runfile("tests/symbols"), by_name + "/symbols"});
  EXPECT_TRUE(MissingOf(ReplayJson({"--debug-dir", by_name, trace}), "symbols").is_null());
}

TEST(SymbolsTest, TheSystemsStrippedGitIsReported) {
  if (access("/usr/bin/git", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/git";
  const std::string dir = MakeTempDir("git");
  const std::string trace = RecordTo(dir, "git", {"/usr/bin/git", "--version"});
  // Every new allocation's stack (--top 0: all hot sites); the report also
  // counts the frames of stacks only reallocs in place and frees have.
  const json j = ReplayJson({"--hot", "--top", "0", trace});
  const json m = MissingOf(j, "git");
  if (m.is_null()) GTEST_SKIP() << "git has symbols here (git-dbgsym installed?)";
  EXPECT_EQ(m["path"], "/usr/bin/git");
  EXPECT_EQ(m["build_id"], BuildId("/usr/bin/git"));
  std::set<std::string> offsets;
  for (const json& site : j["hot"]["sites"]) {
    for (const json& f : site["stack"]) {
      if (f["module"] == "git" && f["function"] == "??") offsets.insert(f["offset"]);
    }
  }
  EXPECT_GT(offsets.size(), 0u);
  EXPECT_GE(m["frames"].get<size_t>(), offsets.size());
  const std::string text = Replay({"--hot", trace});
  EXPECT_NE(text.find("git+0x"), std::string::npos) << text;
  EXPECT_NE(text.find("symbols: no symbols for "), std::string::npos) << text;
  EXPECT_NE(text.find("git (build-id " + BuildId("/usr/bin/git")), std::string::npos) << text;
}

// heaprec keeps the frames it found in the symbol cache (HEAPREC_SYMBOL_CACHE,
// symbolize/symbol_cache.h) and the next recording of the same program takes
// them from there: a name edited in the cache file comes back from the
// second run. (The launcher leaves its objects to the process's exit, so the
// cache is saved as the symbolizer finishes, not when it is destroyed.)
TEST(SymbolsTest, TheNextRecordingTakesTheFramesFromTheSymbolCache) {
  const std::string dir = MakeTempDir("symbol_cache");
  const std::string cache = dir + "/cache";
  ASSERT_EQ(setenv("HEAPREC_SYMBOL_CACHE", cache.c_str(), 1), 0);
  // Unset however the test ends (a failed ASSERT returns early): the other
  // tests' recordings use no cache of this one's.
  struct Unset {
    ~Unset() { unsetenv("HEAPREC_SYMBOL_CACHE"); }
  } unset;
  const std::string program = CopyOfSymbols(dir, {});
  const std::string first = RecordTo(dir, "first", {program});
  const std::string file = cache + "/" + BuildId(program) + ".symbols";
  std::string text = ReadTextFile(file);
  const size_t at = text.find("make_table\t");
  ASSERT_NE(at, std::string::npos) << file << ":\n" << text;
  text.replace(at, 10, "MAKE_TABLE");
  std::ofstream(file, std::ios::trunc) << text;
  const std::string second = RecordTo(dir, "second", {program});
  // The leaks' stacks (make_name's block is freed).
  EXPECT_EQ(OwnFunctions(ReplayJson({"--leaks", "--leak-kinds=all", first})),
            (std::set<std::string>{"fill_row", "make_table", "keep_buffer", "main", "_start"}));
  EXPECT_EQ(OwnFunctions(ReplayJson({"--leaks", "--leak-kinds=all", second})),
            (std::set<std::string>{"fill_row", "MAKE_TABLE", "keep_buffer", "main", "_start"}));
}

}  // namespace
}  // namespace heaprec::tests
