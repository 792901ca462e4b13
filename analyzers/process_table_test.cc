// The process table: exits in words, largest first, aligned columns, the
// cut after max_rows, and the JSON of docs/DESIGN.md.
#include "analyzers/process_table.h"

#include <gtest/gtest.h>

#include "analyzers/process_end.h"

namespace heaprec::analyzers {
namespace {

ProcessRow Row(const std::string& path, int pid, int ppid, int status, uint64_t allocations,
               uint64_t peak, uint64_t leaked, std::vector<std::string> args) {
  ProcessRow r;
  r.path = path;
  r.process.pid = pid;
  r.process.ppid = ppid;
  r.process.program = "/usr/bin/" + args[0];
  r.process.args = std::move(args);
  r.exit_status = status;
  r.allocations = allocations;
  r.peak_bytes = peak;
  r.leaked_bytes = leaked;
  return r;
}

TEST(ProcessEndTest, WordsNeverTheRawStatus) {
  EXPECT_EQ(ExitWords(0, false), "exited 0");
  EXPECT_EQ(ExitWords(11 << 8, false), "exited 11");  // wait status 2816
  EXPECT_EQ(ExitWords(11, false), "killed by SIGSEGV");
  EXPECT_EQ(ExitWords(6 | 0x80, false), "killed by SIGABRT");  // core dumped
  EXPECT_EQ(ExitWords(9, false), "killed by SIGKILL");
  EXPECT_EQ(ExitWords(-1, false), "unknown");
  EXPECT_EQ(ExitWords(-1, true), "exec'd");
  nlohmann::json j;
  AddExitJson(11 << 8, &j);
  EXPECT_EQ(j, nlohmann::json({{"exit_code", 11}, {"signal", nullptr}}));
  AddExitJson(11, &j);
  EXPECT_EQ(j, nlohmann::json({{"exit_code", nullptr}, {"signal", "SIGSEGV"}}));
  EXPECT_EQ(SignalName(6), "SIGABRT");
  AddExitJson(-1, &j);
  EXPECT_EQ(j, nlohmann::json({{"exit_code", nullptr}, {"signal", nullptr}}));
}

TEST(ProcessTableTest, LargestPeakFirstAlignedAndCut) {
  std::vector<ProcessRow> rows = {
      Row("t.10.zst", 10, 1, 0, 5, 100, 0, {"sh", "-c", "x"}),
      Row("t.12.zst", 12, 10, 11 << 8, 40, 4096, 1024, {"/opt/bin/tool", "--fast"}),
      Row("t.13.zst", 13, 10, 11, 7, 100, 100, {"crash"}),
      Row("t.11.zst", 11, 10, -1, 2, 0, 0, {"env", "tool"}),
  };
  rows[3].replaced_by_exec = true;
  SortLargestFirst(&rows);
  EXPECT_EQ(rows[0].process.pid, 12);
  EXPECT_EQ(rows[1].process.pid, 13);  // same peak as 10, more allocations
  EXPECT_EQ(rows[2].process.pid, 10);
  EXPECT_EQ(rows[3].process.pid, 11);
  EXPECT_EQ(ProcessTableText(rows, 0, "  "),
            "  pid  ppid  exit               allocations     peak   leaked  trace     command\n"
            "   12    10  exited 11                   40  4.0 KiB  1.0 KiB  t.12.zst  tool --fast\n"
            "   13    10  killed by SIGSEGV            7    100 B    100 B  t.13.zst  crash\n"
            "   10     1  exited 0                     5    100 B      0 B  t.10.zst  sh -c x\n"
            "   11    10  exec'd                       2      0 B      0 B  t.11.zst  env tool\n");
  EXPECT_EQ(ProcessTableText(rows, 2, ""),
            "pid  ppid  exit               allocations     peak   leaked  trace     command\n"
            " 12    10  exited 11                   40  4.0 KiB  1.0 KiB  t.12.zst  tool --fast\n"
            " 13    10  killed by SIGSEGV            7    100 B    100 B  t.13.zst  crash\n"
            "... and 2 more\n");
}

TEST(ProcessTableTest, LongCommandsAreCutAndTruncatedTracesSaySo) {
  ProcessRow r = Row("t.zst", 1, 0, 0, 1, 1, 1, {"prog", std::string(60, 'a')});
  r.truncated = true;
  const std::string text = ProcessTableText({r}, 0, "");
  EXPECT_NE(text.find("t.zst [truncated]  prog " + std::string(40, 'a') + "...\n"),
            std::string::npos)
      << text;
}

TEST(ProcessTableTest, JsonAsDesignSays) {
  ProcessRow r = Row("dir/t.12.zst", 12, 10, 11 << 8, 40, 4096, 1024, {"tool"});
  r.process.parent_trace = "dir/t.10.zst";
  ProcessRow first = Row("dir/t.10.zst", 10, 1, 11, 1, 2, 3, {"sh"});
  const nlohmann::json want = nlohmann::json::parse(R"({"processes": [
    {"path": "dir/t.12.zst", "pid": 12, "ppid": 10, "parent": "dir/t.10.zst",
     "program": "/usr/bin/tool", "exit_code": 11, "signal": null, "replaced_by_exec": false,
     "truncated": false, "allocations": 40, "peak_bytes": 4096, "leaked_bytes": 1024},
    {"path": "dir/t.10.zst", "pid": 10, "ppid": 1, "parent": null,
     "program": "/usr/bin/sh", "exit_code": null, "signal": "SIGSEGV", "replaced_by_exec": false,
     "truncated": false, "allocations": 1, "peak_bytes": 2, "leaked_bytes": 3}]})");
  EXPECT_EQ(ProcessesJson({r, first}), want);
}

}  // namespace
}  // namespace heaprec::analyzers
