// Both tools' command lines end to end (issue 21, "fail before running"):
// heaprec refuses an output it could not write before the program runs (one
// line naming the path, exit 2, the program never started, no trace); both
// tools print their version and suggest the nearest option for an unknown
// one; heapreplay says which file option took the trace as its value, and a
// file asked for alone is written alone.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "format/format_version.h"
#include "tests/e2e_util.h"

namespace heaprec::tests {
namespace {

std::string Heaprec() { return Runfile("recorder/heaprec"); }
std::string Heapreplay() { return Runfile("replay/heapreplay"); }

size_t Lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// Runs heaprec -o OUTPUT tests/timed (which prints "timed: ok" when it runs)
// and EXPECTs the refusal: exit 2, nothing on stdout, one line on stderr
// that starts with `says`, nothing written in dir.
void ExpectRefused(const std::string& output, const std::string& says, const std::string& dir) {
  const ProcessResult r = RunProgram({Heaprec(), "-o", output, Runfile("tests/timed")});
  EXPECT_EQ(r.exit_code, 2) << output << ": " << r.err;
  EXPECT_EQ(r.out, "") << "the program ran";
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("heaprec: " + says, 0), 0u) << r.err;
  EXPECT_NE(r.err.find("; nothing was run\n"), std::string::npos) << r.err;
  EXPECT_EQ(ListFiles(dir, "").size(), 2u) << Join(ListFiles(dir, ""));  // "." and ".."
}

TEST(CommandLinesTest, HeaprecRefusesAnOutputItCannotWriteBeforeRunning) {
  const std::string dir = MakeTempDir("refused");
  // The case: the folder does not exist.
  ExpectRefused(
      dir + "/no/such/dir/x.zst",
      "cannot write " + dir + "/no/such/dir/x.zst: folder " + dir + "/no/such/dir does not exist",
      dir);
  // A folder where a file name belongs.
  ExpectRefused(dir, "cannot write " + dir + ": it names a folder", dir);
  // A file system that takes no new file (sysfs refuses even root).
  ExpectRefused("/sys/x.%p.zst", "cannot write /sys/x.%p.zst: cannot create a file in /sys: ", dir);
  // The same program with a folder that exists records as usual.
  const ProcessResult ok =
      RunProgram({Heaprec(), "-q", "-o", dir + "/t.zst", Runfile("tests/timed")});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out, "timed: ok\n");
  EXPECT_EQ(ListFiles(dir, ".zst"), std::vector<std::string>{dir + "/t.zst"});
}

TEST(CommandLinesTest, Versions) {
  for (const std::string tool : {"heaprec", "heapreplay"}) {
    const ProcessResult r = RunProgram({tool == "heaprec" ? Heaprec() : Heapreplay(), "--version"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, format::VersionLine(tool) + "\n");
    EXPECT_EQ(r.out.rfind(tool + " " + format::kToolsVersion + " (trace format ", 0), 0u) << r.out;
  }
}

TEST(CommandLinesTest, UnknownOptionsSuggestTheNearest) {
  const ProcessResult replay = RunProgram({Heapreplay(), "--leak-kind=all", "t.zst"});
  EXPECT_EQ(replay.exit_code, 2);
  EXPECT_EQ(replay.err,
            "heapreplay: unknown option '--leak-kind=all'; did you mean '--leak-kinds'?\n");
  const ProcessResult rec = RunProgram({Heaprec(), "--free-stack", Runfile("tests/timed")});
  EXPECT_EQ(rec.exit_code, 2);
  EXPECT_EQ(rec.out, "") << "the program ran";
  EXPECT_EQ(rec.err, "heaprec: unknown option '--free-stack'; did you mean '--free-stacks'?\n");
  // Nothing near: the help is named instead.
  const ProcessResult far = RunProgram({Heapreplay(), "--bogus", "t.zst"});
  EXPECT_EQ(far.err, "heapreplay: unknown option '--bogus' (see heapreplay --help)\n");
}

// Records tests/timed once for the heapreplay cases.
std::string RecordTimed(const std::string& dir) {
  const std::string trace = dir + "/timed.zst";
  const ProcessResult r = RunHeaprec(trace, {Runfile("tests/timed")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return trace;
}

TEST(CommandLinesTest, AFileOptionThatTookTheTraceSaysSo) {
  const std::string dir = MakeTempDir("forgotten");
  const std::string trace = RecordTimed(dir);
  const std::string before = ReadFile(trace);
  const struct {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{"--html", trace},
       "--html takes the page to write, then the trace: heapreplay --html OUT.html T.zst"},
      {{"--peak", "--pprof", trace},
       "--pprof takes the profile to write, then the trace: heapreplay --pprof OUT.pb.gz T.zst"},
      {{"--flamegraph", trace},
       "--flamegraph takes the SVG to write, then the trace: heapreplay --flamegraph OUT.svg "
       "T.zst"},
      {{"--base", trace},
       "--base takes the trace to compare with, then the trace: heapreplay --base OLD.zst T.zst"},
      {{"--leaks"}, "no trace given (usage: heapreplay [analyses] [output options] TRACE)"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> argv = {Heapreplay()};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    const ProcessResult r = RunProgram(argv);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "heapreplay: " + c.says + "\n");
    EXPECT_EQ(r.out, "");
  }
  EXPECT_EQ(ReadFile(trace), before) << "the trace was overwritten";
}

TEST(CommandLinesTest, AFileAloneIsWrittenAlone) {
  const std::string dir = MakeTempDir("alone");
  const std::string trace = RecordTimed(dir);
  const std::string html = dir + "/r.html", pb = dir + "/p.pb.gz", svg = dir + "/f.svg";
  const ProcessResult alone =
      RunProgram({Heapreplay(), "--html", html, "--pprof", pb, "--flamegraph", svg, trace});
  EXPECT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_EQ(alone.out, "");
  EXPECT_EQ(alone.err, "");
  for (const std::string& file : {html, pb, svg}) {
    struct stat st;
    EXPECT_EQ(stat(file.c_str(), &st), 0) << file;
    EXPECT_GT(st.st_size, 100) << file;
  }
  // An analysis or a stdout format named: that on stdout too.
  const ProcessResult hot = RunProgram({Heapreplay(), "--hot", "--flamegraph", svg, trace});
  EXPECT_EQ(hot.exit_code, 0) << hot.err;
  EXPECT_NE(hot.out.find(" allocation calls ("), std::string::npos) << hot.out;
  const ProcessResult json = RunProgram({Heapreplay(), "--json", "--pprof", pb, trace});
  EXPECT_EQ(json.out.rfind("{", 0), 0u) << json.out;
  // No file: the overview, as always.
  const ProcessResult overview = RunProgram({Heapreplay(), trace});
  EXPECT_NE(overview.out.find("\nsummary: "), std::string::npos) << overview.out;
}

}  // namespace
}  // namespace heaprec::tests
