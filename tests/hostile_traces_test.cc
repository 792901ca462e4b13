// heapreplay on every kind of bad input a user can hand it: an empty file,
// random bytes, a real trace cut at many points, bytes flipped in its middle,
// a text file, a folder, a missing path, an unreadable file, a trace of a
// newer format version (and a heaptrack recording, which is read). Each ends in one clear line
// naming the file (exit 1) or a partial result with a warning naming it (exit 0), never a crash, a
// hang (the test's timeout) or unbounded memory (heapreplay runs under a 1 GiB address-space limit,
// so a runaway allocation aborts). Cut traces lose nothing before the cut: the allocations reported
// grow with the cut and reach the whole trace's.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "format/format_version.h"
#include "tests/e2e_util.h"

namespace heaprec::tests {
namespace {

// seq_switch: 150,004 allocations over several chunks (tests/programs).
constexpr uint64_t kAllocations = 150004;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines.push_back(text.substr(start, nl - start));
  }
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

ProcessResult Heapreplay(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/usr/bin/prlimit", "--as=1073741824", "--",
                                   Runfile("replay/heapreplay")};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProgram(argv);
}

const std::string& GoodTrace() {
  static const std::string bytes = [] {
    const Recording r = Record("good", {Runfile("tests/seq_switch")});
    EXPECT_EQ(r.run.exit_code, 0) << r.run.err;
    EXPECT_EQ(r.traces.size(), 1u) << r.run.err;
    if (r.traces.size() != 1) return std::string();
    std::ifstream in(r.traces[0], std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }();
  return bytes;
}

std::string Write(const std::string& name, const std::string& bytes) {
  static const std::string dir = MakeTempDir("hostile");
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  return path;
}

// Exit 1, nothing on stdout, one line "heapreplay: PATH: ...says...".
void ExpectOneLineError(const ProcessResult& r, const std::string& path, const std::string& says) {
  EXPECT_EQ(r.exit_code, 1) << path << "\n" << r.err;
  EXPECT_EQ(r.out, "") << path;
  const std::vector<std::string> lines = Lines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_EQ(lines[0].rfind("heapreplay: " + path + ": ", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find(says), std::string::npos) << lines[0];
}

// Either outcome a damaged trace may have, and never anything else: a
// one-line error, or exit 0 with every line of stderr naming the file.
// Returns the allocations reported (-1 for an error).
int64_t ExpectErrorOrWarnedResult(const std::string& path) {
  const ProcessResult r = Heapreplay({"--json", "--leaks", path});
  if (r.exit_code == 1) {
    ExpectOneLineError(r, path, "");
    return -1;
  }
  EXPECT_EQ(r.exit_code, 0) << path << "\n" << r.err;
  for (const std::string& line : Lines(r.err)) {
    EXPECT_EQ(line.rfind("heapreplay: warning: " + path + ": ", 0), 0u) << line;
  }
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << path << ": stdout is not JSON";
  if (j.is_discarded()) return -1;
  return j["summary"]["allocations"].get<int64_t>();
}

TEST(HostileTracesTest, NotTracesAtAll) {
  ExpectOneLineError(Heapreplay({Write("empty.zst", "")}), Write("empty.zst", ""), "empty file");
  const std::string text = Write("notes.txt", "leak at foo.c:12\nsecond line\n");
  ExpectOneLineError(Heapreplay({"--leaks", text}), text, "not a heaprec trace");
  const std::string dir = MakeTempDir("a_folder");
  ExpectOneLineError(Heapreplay({"--leaks", dir}), dir, "is a directory");
  const std::string missing = dir + "/missing.zst";
  ExpectOneLineError(Heapreplay({"--peak", missing}), missing, "No such file or directory");
  std::mt19937 rng(42);
  for (size_t size : {1, 7, 23, 24, 100, 4096, 100000}) {
    std::string bytes(size, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    const std::string path = Write("random" + std::to_string(size), bytes);
    ExpectOneLineError(Heapreplay({"--leaks", path}), path, "");
    // The real header, then random bytes: damage, not a foreign file.
    const std::string after =
        Write("header_then_random" + std::to_string(size), GoodTrace().substr(0, 24) + bytes);
    ExpectErrorOrWarnedResult(after);
  }
}

TEST(HostileTracesTest, HeaptrackRecording) {
  // heaptrack (installed by tools/setup.sh) on the same program: read, not
  // an error, with what it lacks said (tests/heaptrack_test checks numbers).
  const std::string dir = MakeTempDir("heaptrack");
  const ProcessResult run =
      RunProgram({"/usr/bin/heaptrack", "-o", dir + "/ht", Runfile("tests/c_leaks")});
  ASSERT_EQ(run.exit_code, 3) << run.out << run.err;  // c_leaks exits with 3
  const std::vector<std::string> files = ListFiles(dir, ".zst");
  ASSERT_EQ(files.size(), 1u) << run.out;
  const ProcessResult r = Heapreplay({"--leaks", files[0]});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("warning: a heaptrack 1.4.0 (file format 3) recording; it holds no "
                       "threads"),
            std::string::npos)
      << r.out;
}

TEST(HostileTracesTest, UnreadableFile) {
  const std::string path = Write("unreadable.zst", GoodTrace());
  ASSERT_EQ(chmod(path.c_str(), 0), 0);
  ProcessResult r;
  if (geteuid() == 0) {
    // root reads any file; without the capabilities that let it, it cannot.
    r = RunProgram({"/usr/bin/setpriv", "--bounding-set=-dac_override,-dac_read_search",
                    Runfile("replay/heapreplay"), "--leaks", path});
  } else {
    r = Heapreplay({"--leaks", path});
  }
  ExpectOneLineError(r, path, "Permission denied");
}

TEST(HostileTracesTest, NewerFormatVersion) {
  std::string bytes = GoodTrace();
  ASSERT_GT(bytes.size(), 24u);
  bytes[16] = static_cast<char>(format::kFormatMajor + 1);  // the major version
  const std::string path = Write("newer.zst", bytes);
  ExpectOneLineError(Heapreplay({"--leaks", path}), path, "is newer than this build reads");
}

TEST(HostileTracesTest, CutAtManyPointsKeepsEverythingBeforeTheCut) {
  const std::string& bytes = GoodTrace();
  ASSERT_GT(bytes.size(), 2000u);
  std::vector<size_t> cuts;
  for (size_t c = 0; c < 40; ++c) cuts.push_back(c);  // in and just after the header
  for (size_t c = 40; c < bytes.size(); c += bytes.size() / 60) cuts.push_back(c);
  cuts.push_back(bytes.size() - 1);
  int64_t before = 0;
  bool partial = false;
  for (size_t cut : cuts) {
    const std::string path = Write("cut" + std::to_string(cut), bytes.substr(0, cut));
    const ProcessResult r = Heapreplay({"--json", "--leaks", path});
    if (cut == 0) {
      ExpectOneLineError(r, path, "empty file");
      continue;
    }
    // Cut inside the header too: the start of a recording cut short.
    ASSERT_EQ(r.exit_code, 0) << path << "\n" << r.err;
    const std::vector<std::string> lines = Lines(r.err);
    ASSERT_EQ(lines.size(), 1u) << r.err;
    EXPECT_EQ(lines[0].rfind("heapreplay: warning: " + path + ": trace is truncated", 0), 0u)
        << lines[0];
    const int64_t allocations = nlohmann::json::parse(r.out)["summary"]["allocations"];
    EXPECT_GE(allocations, before) << "cut at " << cut << " lost what an earlier cut kept";
    EXPECT_LE(allocations, static_cast<int64_t>(kAllocations));
    partial = partial || (allocations > 0 && allocations < static_cast<int64_t>(kAllocations));
    before = allocations;
  }
  EXPECT_TRUE(partial) << "no cut fell between chunks";
  EXPECT_EQ(before, static_cast<int64_t>(kAllocations)) << "the last cut is in the end chunk";
  // The whole trace, for comparison.
  EXPECT_EQ(ExpectErrorOrWarnedResult(Write("whole.zst", bytes)),
            static_cast<int64_t>(kAllocations));
}

TEST(HostileTracesTest, FlippedBytesInTheMiddle) {
  const std::string& bytes = GoodTrace();
  std::mt19937 rng(7);
  for (int i = 0; i < 40; ++i) {
    std::string bad = bytes;
    const size_t at = 24 + rng() % (bad.size() - 24);
    bad[at] = static_cast<char>(bad[at] ^ (1 + rng() % 255));
    const std::string path = Write("flip" + std::to_string(at), bad);
    EXPECT_LE(ExpectErrorOrWarnedResult(path), static_cast<int64_t>(kAllocations)) << path;
    // Every analysis and output, not only the JSON leak report.
    const ProcessResult r = Heapreplay(
        {"--leaks", "--peak", "--temporaries", "--hot", "--histogram", "--mismatches", path});
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << path << "\n" << r.err;
  }
}

}  // namespace
}  // namespace heaprec::tests
