// The leak check as a test suite uses it (tests/programs/leak_kinds.cc):
// heaprec --leak-check=full --error-exitcode=N fails a program that leaks
// and passes one that does not, with valgrind's words on stderr; kinds that
// do not count, suppressions (valgrind's and LeakSanitizer's) and summary
// mode; heapreplay --leaks --error-exitcode on a saved trace;
// heaprec_leak_check() mid-run, seen by heapreplay --leaks --at; and
// programs a signal ends: scanned as glibc's malloc aborts on a double free,
// and a SIGKILL that leaves no scan, with the trace saying why.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/e2e_util.h"

namespace heaprec::tests {
namespace {

std::string Program() { return Runfile("tests/leak_kinds"); }

ProcessResult Gate(const std::vector<std::string>& options, const std::string& mode) {
  std::vector<std::string> argv = {Runfile("recorder/heaprec"), "-q", "-o",
                                   MakeTempDir("gate_" + mode) + "/t.%p.zst"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back(Program());
  argv.push_back(mode);
  return RunProgram(argv);
}

std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = MakeTempDir("supp") + "/" + name;
  FILE* f = fopen(path.c_str(), "w");
  EXPECT_NE(f, nullptr);
  if (f != nullptr) {
    fputs(text.c_str(), f);
    fclose(f);
  }
  return path;
}

TEST(LeakCheckTest, FailsALeakWithValgrindsWords) {
  const ProcessResult r = Gate({"--leak-check=full", "--error-exitcode=9"}, "plain");
  EXPECT_EQ(r.exit_code, 9) << r.err;
  EXPECT_EQ(r.out, "leak_kinds: done\n");
  for (const char* line : {"== HEAP SUMMARY:", "==    definitely lost: 33 bytes in 1 blocks",
                           "== 33 bytes in 1 blocks are definitely lost in loss record",
                           "==    at 0x0: malloc (in heaprec)", "Make (leak_kinds.cc:",
                           "Plain (leak_kinds.cc:", "== ERROR SUMMARY: 1 errors from 1 contexts"}) {
    EXPECT_NE(r.err.find(line), std::string::npos) << line << "\n" << r.err;
  }
}

TEST(LeakCheckTest, PassesWhatIsStillReachable) {
  const ProcessResult r = Gate({"--leak-check", "--error-exitcode=9"}, "globals");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("still reachable: 72,824 bytes in 4 blocks"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ERROR SUMMARY: 0 errors"), std::string::npos) << r.err;
  // Unless reachable counts too.
  EXPECT_EQ(Gate({"--leak-check", "--error-exitcode=9", "--errors-for-leak-kinds=all"}, "globals")
                .exit_code,
            9);
}

TEST(LeakCheckTest, OnlyTheKindsThatCount) {
  // "interior" leaves one possibly lost block: counted by default, not with
  // definite alone.
  EXPECT_EQ(Gate({"--leak-check=full", "--error-exitcode=9"}, "interior").exit_code, 9);
  EXPECT_EQ(Gate({"--leak-check=full", "--error-exitcode=9", "--errors-for-leak-kinds=definite"},
                 "interior")
                .exit_code,
            0);
}

TEST(LeakCheckTest, SuppressionsOfBothFormats) {
  const std::string valgrind = WriteFile("v.supp",
                                         "{\n   plain-leak\n   Memcheck:Leak\n   fun:malloc\n"
                                         "   fun:*Make*\n   fun:*Plain*\n}\n");
  const ProcessResult v =
      Gate({"--leak-check=full", "--error-exitcode=9", "--suppressions=" + valgrind}, "plain");
  EXPECT_EQ(v.exit_code, 0) << v.err;
  EXPECT_NE(v.err.find("suppressed: 33 bytes in 1 blocks"), std::string::npos) << v.err;
  EXPECT_NE(v.err.find("definitely lost: 0 bytes in 0 blocks"), std::string::npos) << v.err;
  const std::string lsan = WriteFile("l.supp", "# LeakSanitizer\nleak:Plain\n");
  const ProcessResult l =
      Gate({"--leak-check=full", "--error-exitcode=9", "--suppressions=" + lsan}, "plain");
  EXPECT_EQ(l.exit_code, 0) << l.err;
  EXPECT_NE(l.err.find("suppressed: 33 bytes in 1 blocks"), std::string::npos) << l.err;
  // A bad file stops before anything runs, naming the file and line.
  const std::string bad = WriteFile("bad.supp", "{\n   no-kind\n   fun:malloc\n}\n");
  const ProcessResult b = Gate({"--leak-check", "--suppressions=" + bad}, "plain");
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_EQ(b.out, "");
  EXPECT_EQ(b.err.rfind("heaprec: " + bad + ":", 0), 0u) << b.err;
}

TEST(LeakCheckTest, SummaryModeListsNoRecords) {
  const ProcessResult r = Gate({"--leak-check=summary", "--error-exitcode=9"}, "plain");
  EXPECT_EQ(r.exit_code, 9) << r.err;
  EXPECT_NE(r.err.find("definitely lost: 33 bytes in 1 blocks"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("loss record"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Rerun with --leak-check=full"), std::string::npos) << r.err;
}

TEST(LeakCheckTest, HeapreplayGatesASavedTrace) {
  const Recording rec = Record("gate_saved", {Program(), "list"});
  ASSERT_EQ(rec.traces.size(), 1u) << rec.run.err;
  const std::string heapreplay = Runfile("replay/heapreplay");
  EXPECT_EQ(RunProgram({heapreplay, "--leaks", "--error-exitcode=5", rec.traces[0]}).exit_code, 5);
  EXPECT_EQ(RunProgram({heapreplay, "--leaks", "--error-exitcode=5", "--errors-for-leak-kinds=none",
                        rec.traces[0]})
                .exit_code,
            0);
  // Nothing to check is no pass: a file with only the header.
  const std::string empty = MakeTempDir("gate_empty") + "/cut.zst";
  {
    FILE* in = fopen(rec.traces[0].c_str(), "rb");
    FILE* out = fopen(empty.c_str(), "wb");
    ASSERT_TRUE(in != nullptr && out != nullptr);
    char header[24];
    ASSERT_EQ(fread(header, 1, sizeof(header), in), sizeof(header));
    fwrite(header, 1, sizeof(header), out);
    fclose(in);
    fclose(out);
  }
  const ProcessResult cut = RunProgram({heapreplay, "--leaks", "--error-exitcode=5", empty});
  EXPECT_NE(cut.exit_code, 0);
  EXPECT_NE(cut.err.find(empty + ": no complete chunk"), std::string::npos) << cut.err;
}

TEST(LeakCheckTest, ScanAskedForMidRunAnswersAtItsMarker) {
  const Recording rec = Record("checkpoint", {Program(), "checkpoint"});
  ASSERT_EQ(rec.traces.size(), 1u) << rec.run.err;
  const std::string heapreplay = Runfile("replay/heapreplay");
  auto kinds = [&](std::vector<std::string> extra) {
    std::vector<std::string> argv = {heapreplay, "--leaks", "--json"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back(rec.traces[0]);
    const ProcessResult r = RunProgram(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out)["leaks"];
  };
  // At the scan: the global block reachable, the first lost one definitely
  // lost (with the libstdc++ pool, reachable from its start).
  const nlohmann::json at = kinds({"--at", "leak-check-1"});
  EXPECT_EQ(at["scan"]["reason"], "request");
  EXPECT_EQ(at["scan"]["label"], "leak-check-1");
  EXPECT_EQ(at["kinds"]["definitely_lost"], nlohmann::json({{"bytes", 2000}, {"blocks", 1}}));
  EXPECT_EQ(at["kinds"]["still_reachable"]["bytes"], 72704 + 1000);
  // At the end: the global one freed, a second lost one.
  const nlohmann::json end = kinds({});
  EXPECT_EQ(end["scan"]["reason"], "exit");
  EXPECT_EQ(end["kinds"]["definitely_lost"], nlohmann::json({{"bytes", 5000}, {"blocks", 2}}));
  EXPECT_EQ(end["kinds"]["still_reachable"]["bytes"], 72704);
}

TEST(LeakCheckTest, AProgramAbortedInsideFreeIsScanned) {
  const ProcessResult r = Gate({"--leak-check=full", "--error-exitcode=9"}, "double_free");
  // The program's own end, 128 + SIGABRT, not the gate's 9: as valgrind.
  EXPECT_EQ(r.exit_code, 128 + 6) << r.err;
  for (const char* line : {"== Process terminating with default action of signal 6 (SIGABRT)",
                           "==    definitely lost: 33 bytes in 1 blocks",
                           "== 33 bytes in 1 blocks are definitely lost in loss record"}) {
    EXPECT_NE(r.err.find(line), std::string::npos) << line << "\n" << r.err;
  }
}

TEST(LeakCheckTest, SigkillLeavesNoScanAndSaysWhy) {
  const Recording rec = Record("sigkill", {Program(), "sigkill"});
  EXPECT_EQ(rec.run.exit_code, 128 + 9);
  ASSERT_EQ(rec.traces.size(), 1u) << rec.run.err;
  const std::string heapreplay = Runfile("replay/heapreplay");
  const ProcessResult r = RunProgram({heapreplay, "--leaks", "--json", rec.traces[0]});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json leaks = nlohmann::json::parse(r.out)["leaks"];
  EXPECT_EQ(leaks["scan"]["status"], "not_done");
  EXPECT_EQ(leaks["kinds_unknown"], "killed by SIGKILL (signal 9) before its end could be scanned");
  EXPECT_EQ(leaks["kinds"]["unknown"]["bytes"], leaks["bytes"]);
  // A gate does not pass on what it could not check.
  EXPECT_EQ(RunProgram({heapreplay, "--leaks", "--error-exitcode=5", rec.traces[0]}).exit_code, 5);
}

}  // namespace
}  // namespace heaprec::tests
