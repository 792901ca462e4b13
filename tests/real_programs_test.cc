// heaprec's counts on real programs from Debian against the tools users
// compare it with (tools/setup.sh installs all of them):
// - valgrind memcheck's HEAP SUMMARY ("in use at exit: B bytes in N blocks",
//   "total heap usage: A allocs, F frees, X bytes allocated") for sqlite3 and
//   jq: heapreplay's summary must give the same five numbers;
// - heaptrack_print's "calls to allocation functions" and "temporary memory
//   allocations" for sqlite3 and clang-format: the same numbers, once what
//   heaptrack's own preloaded libraries do while they are loaded is set
//   aside: stacks from the dynamic loader's _dl_init are compared apart
//   (heaptrack's libstdc++ makes its emergency pool there; heaptrack names
//   none of its own frames), and the totals may differ by those few.
// Each workload is deterministic. valgrind runs with libc's and libstdc++'s
// freeres off: heaprec, like a normal run, frees nothing after exit.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/e2e_util.h"

namespace heaprec::tests {
namespace {

const char kSql[] =
    "create table t(a, b); with recursive c(x) as (select 1 union all select x + 1 from c "
    "where x < 3000) insert into t select x, printf('%040d', x) from c; create index i on "
    "t(b); delete from t where a % 3 = 0; select count(*), sum(length(b)) from t;";
const char kJq[] =
    "[range(0; 3000)] | map({a: ., b: (. | tostring)}) | group_by(.a % 7) | "
    "map(length)";

struct HeapUsage {
  uint64_t allocations = 0, frees = 0, bytes_allocated = 0, in_use_bytes = 0, in_use_blocks = 0;
  bool operator==(const HeapUsage&) const = default;
};

std::string Show(const HeapUsage& u) {
  return std::to_string(u.allocations) + " allocs, " + std::to_string(u.frees) + " frees, " +
         std::to_string(u.bytes_allocated) + " bytes allocated, in use at exit " +
         std::to_string(u.in_use_bytes) + " bytes in " + std::to_string(u.in_use_blocks) +
         " blocks";
}

uint64_t Number(const std::string& s) {
  std::string digits;
  for (char c : s) {
    if (c != ',') digits += c;
  }
  return std::stoull(digits);
}

bool Installed(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

HeapUsage Valgrind(const std::vector<std::string>& argv) {
  std::vector<std::string> v = {"/usr/bin/valgrind", "--run-libc-freeres=no",
                                "--run-cxx-freeres=no"};
  v.insert(v.end(), argv.begin(), argv.end());
  const ProcessResult r = RunProgram(v);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  HeapUsage u;
  std::smatch m;
  const std::regex in_use(R"(in use at exit: ([0-9,]+) bytes in ([0-9,]+) blocks)");
  const std::regex total(
      R"(total heap usage: ([0-9,]+) allocs, ([0-9,]+) frees, ([0-9,]+) bytes allocated)");
  EXPECT_TRUE(std::regex_search(r.err, m, in_use)) << r.err;
  if (m.size() == 3) u.in_use_bytes = Number(m[1]), u.in_use_blocks = Number(m[2]);
  EXPECT_TRUE(std::regex_search(r.err, m, total)) << r.err;
  if (m.size() == 4) {
    u.allocations = Number(m[1]), u.frees = Number(m[2]), u.bytes_allocated = Number(m[3]);
  }
  return u;
}

// Records argv; returns the one trace (empty on failure, reported).
std::string RecordTrace(const std::string& name, const std::vector<std::string>& argv) {
  const Recording r = Record(name, argv);
  EXPECT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_EQ(r.traces.size(), 1u) << r.run.err;
  return r.traces.size() == 1 ? r.traces[0] : "";
}

HeapUsage Heaprec(const std::string& name, const std::vector<std::string>& argv) {
  const std::string trace = RecordTrace(name, argv);
  const ProcessResult r = RunProgram({Runfile("replay/heapreplay"), "--json", trace});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json s = nlohmann::json::parse(r.out)["summary"];
  return {s["allocations"], s["frees"], s["bytes_allocated"], s["leaked_bytes"],
          s["leaked_blocks"]};
}

// Sum of a folded-stacks file's counts, leaving out stacks through _dl_init
// (heaptrack's folded names a function "NAME (file.c)", ours "NAME").
uint64_t FoldedTotal(const std::string& folded) {
  uint64_t total = 0;
  std::istringstream in(folded);
  for (std::string line; std::getline(in, line);) {
    const size_t space = line.rfind(' ');
    if (space == std::string::npos) continue;
    if (line.find(";_dl_init") != std::string::npos || line.rfind("_dl_init", 0) == 0) continue;
    total += std::stoull(line.substr(space + 1));
  }
  return total;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// Without the stacks through _dl_init (calls, temporaries) and all of them.
struct Calls {
  uint64_t calls = 0, temporaries = 0, all_calls = 0, all_temporaries = 0;
};

// heaptrack's numbers, and its folded stacks with _dl_init's left out; the
// totals it prints are checked to include what the folded stacks hold.
Calls Heaptrack(const std::string& name, const std::vector<std::string>& argv) {
  const std::string dir = MakeTempDir(name);
  std::vector<std::string> v = {"/usr/bin/heaptrack", "-o", dir + "/ht"};
  v.insert(v.end(), argv.begin(), argv.end());
  const ProcessResult run = RunProgram(v);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::string data = dir + "/ht.zst";
  const ProcessResult printed = RunProgram({"/usr/bin/heaptrack_print", "-f", data});
  std::smatch m;
  const std::regex calls_line(R"(calls to allocation functions: ([0-9]+))");
  const std::regex temps_line(R"(temporary memory allocations: ([0-9]+))");
  EXPECT_TRUE(std::regex_search(printed.out, m, calls_line)) << printed.out;
  Calls c;
  c.all_calls = m.size() == 2 ? Number(m[1]) : 0;
  EXPECT_TRUE(std::regex_search(printed.out, m, temps_line)) << printed.out;
  c.all_temporaries = m.size() == 2 ? Number(m[1]) : 0;
  for (const auto& [type, out] :
       {std::pair{"allocations", &c.calls}, std::pair{"temporary", &c.temporaries}}) {
    const std::string folded = dir + "/" + type + ".folded";
    const ProcessResult f =
        RunProgram({"/usr/bin/heaptrack_print", "-f", data, "--flamegraph-cost-type", type, "-F",
                    folded, "-p", "0", "-a", "0", "-T", "0", "-l", "0"});
    EXPECT_EQ(f.exit_code, 0) << f.err;
    *out = FoldedTotal(ReadFile(folded));
  }
  return c;
}

Calls HeaprecCalls(const std::string& name, const std::vector<std::string>& argv) {
  const std::string trace = RecordTrace(name, argv);
  Calls c;
  for (const auto& [analysis, out] :
       {std::pair{"--hot", &c.calls}, std::pair{"--temporaries", &c.temporaries}}) {
    const ProcessResult f = RunProgram(
        {Runfile("replay/heapreplay"), "--folded", "--metric", "count", analysis, trace});
    EXPECT_EQ(f.exit_code, 0) << f.err;
    *out = FoldedTotal(f.out);
  }
  const ProcessResult j = RunProgram({Runfile("replay/heapreplay"), "--json", trace});
  EXPECT_EQ(j.exit_code, 0) << j.err;
  const nlohmann::json s = nlohmann::json::parse(j.out)["summary"];
  c.all_calls = s["allocations"];
  c.all_temporaries = s["temporaries"];
  return c;
}

// Equal but for what heaptrack's own libraries do while the loader runs
// their constructors: at most two calls and one temporary (its libstdc++'s
// emergency pool when the program has none, and one freed block).
void ExpectSameAsHeaptrack(const Calls& hr, const Calls& ht) {
  EXPECT_EQ(hr.calls, ht.calls);
  EXPECT_EQ(hr.temporaries, ht.temporaries);
  EXPECT_LE(hr.all_calls, ht.all_calls);
  EXPECT_LE(ht.all_calls, hr.all_calls + 2);
  EXPECT_LE(hr.all_temporaries, ht.all_temporaries);
  EXPECT_LE(ht.all_temporaries, hr.all_temporaries + 1);
}

TEST(RealPrograms, Sqlite3HeapUsageAsValgrind) {
  ASSERT_TRUE(Installed("/usr/bin/valgrind")) << "valgrind is missing (tools/setup.sh)";
  ASSERT_TRUE(Installed("/usr/bin/sqlite3")) << "sqlite3 is missing (tools/setup.sh)";
  const std::vector<std::string> argv = {"/usr/bin/sqlite3", ":memory:", kSql};
  const HeapUsage vg = Valgrind(argv), hr = Heaprec("sqlite3", argv);
  EXPECT_GT(vg.allocations, 5000u);
  EXPECT_EQ(hr, vg) << "heaprec:  " << Show(hr) << "\nvalgrind: " << Show(vg);
}

TEST(RealPrograms, JqHeapUsageAsValgrind) {
  ASSERT_TRUE(Installed("/usr/bin/valgrind")) << "valgrind is missing (tools/setup.sh)";
  ASSERT_TRUE(Installed("/usr/bin/jq")) << "jq is missing (tools/setup.sh)";
  const std::vector<std::string> argv = {"/usr/bin/jq", "-nc", kJq};
  const HeapUsage vg = Valgrind(argv), hr = Heaprec("jq", argv);
  EXPECT_GT(vg.allocations, 10000u);
  EXPECT_EQ(hr, vg) << "heaprec:  " << Show(hr) << "\nvalgrind: " << Show(vg);
}

TEST(RealPrograms, Sqlite3CallsAndTemporariesAsHeaptrack) {
  ASSERT_TRUE(Installed("/usr/bin/heaptrack")) << "heaptrack is missing (tools/setup.sh)";
  ASSERT_TRUE(Installed("/usr/bin/sqlite3")) << "sqlite3 is missing (tools/setup.sh)";
  const std::vector<std::string> argv = {"/usr/bin/sqlite3", ":memory:", kSql};
  const Calls ht = Heaptrack("sqlite3_ht", argv), hr = HeaprecCalls("sqlite3_hr", argv);
  EXPECT_GT(ht.temporaries, 20u);
  ExpectSameAsHeaptrack(hr, ht);
}

TEST(RealPrograms, ClangFormatCallsAndTemporariesAsHeaptrack) {
  ASSERT_TRUE(Installed("/usr/bin/heaptrack")) << "heaptrack is missing (tools/setup.sh)";
  ASSERT_TRUE(Installed("/usr/bin/clang-format")) << "clang-format is missing (tools/setup.sh)";
  // A C++ file of ours to format (the output goes to stdout; nothing changes).
  const std::vector<std::string> argv = {"/usr/bin/clang-format",
                                         Runfile("tests/real_programs_test.cc")};
  const Calls ht = Heaptrack("clang_format_ht", argv), hr = HeaprecCalls("clang_format_hr", argv);
  EXPECT_GT(ht.temporaries, 1000u);
  ExpectSameAsHeaptrack(hr, ht);
}

}  // namespace
}  // namespace heaprec::tests
