// heaprec's leak scan against valgrind memcheck on the same binary
// (tests/programs/leak_kinds.cc): for every scenario (globals, statics, TLS,
// a lost list, a lost cycle, interior pointers, a pointer only in a blocked
// thread's stack, in an mmap'd buffer, in another block, new[] of a class
// with a destructor, a plain leak, all at once, a process ending on SIGSEGV
// and on SIGABRT) the LEAK SUMMARY's bytes and
// blocks per kind are the same. Both run with libc's and libstdc++'s freeres
// off (valgrind would free what heaprec, scanning at exit_group's moment,
// sees live). valgrind comes with tools/setup.sh.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "tests/e2e_util.h"

namespace heaprec::tests {
namespace {

using Kinds = std::map<std::string, std::pair<uint64_t, uint64_t>>;  // kind -> bytes, blocks

uint64_t Number(const std::string& s) {
  std::string digits;
  for (char c : s) {
    if (c != ',') digits += c;
  }
  return std::stoull(digits);
}

// The segv and abort scenarios end on their signal, under either tool.
int ExitCode(const std::string& mode) {
  return mode == "segv" ? 128 + SIGSEGV : mode == "abort" ? 128 + SIGABRT : 0;
}

// valgrind's LEAK SUMMARY, by the JSON's kind names.
Kinds ValgrindKinds(const std::string& mode, const std::string& suppressions) {
  std::vector<std::string> argv = {"/usr/bin/valgrind",     "--leak-check=full",
                                   "--show-leak-kinds=all", "--errors-for-leak-kinds=none",
                                   "--run-libc-freeres=no", "--run-cxx-freeres=no"};
  if (!suppressions.empty()) argv.push_back("--suppressions=" + suppressions);
  argv.push_back(Runfile("tests/leak_kinds"));
  argv.push_back(mode);
  const ProcessResult r = RunProgram(argv);
  EXPECT_EQ(r.exit_code, ExitCode(mode)) << r.err;
  const std::map<std::string, std::string> names = {{"definitely lost", "definitely_lost"},
                                                    {"indirectly lost", "indirectly_lost"},
                                                    {"possibly lost", "possibly_lost"},
                                                    {"still reachable", "still_reachable"},
                                                    {"suppressed", "suppressed"}};
  Kinds kinds;
  const std::regex line(
      R"((definitely lost|indirectly lost|possibly lost|still reachable|suppressed): ([0-9,]+) bytes in ([0-9,]+) blocks)");
  for (std::sregex_iterator it(r.err.begin(), r.err.end(), line), end; it != end; ++it) {
    kinds[names.at((*it)[1])] = {Number((*it)[2]), Number((*it)[3])};
  }
  EXPECT_EQ(kinds.size(), 5u) << r.err;
  return kinds;
}

Kinds HeaprecKinds(const std::string& mode, const std::string& suppressions) {
  const Recording r = Record("leak_kinds_" + mode, {Runfile("tests/leak_kinds"), mode});
  EXPECT_EQ(r.run.exit_code, ExitCode(mode)) << r.run.err;
  EXPECT_EQ(r.run.out, "leak_kinds: done\n");
  EXPECT_EQ(r.traces.size(), 1u) << r.run.err;
  if (r.traces.size() != 1) return {};
  std::vector<std::string> argv = {Runfile("replay/heapreplay"), "--leaks", "--json"};
  if (!suppressions.empty()) argv.push_back("--suppressions=" + suppressions);
  argv.push_back(r.traces[0]);
  const ProcessResult json = RunProgram(argv);
  EXPECT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["leaks"]["scan"]["status"], "done") << j["leaks"]["scan"];
  if (ExitCode(mode) != 0) {  // the scan names the signal
    EXPECT_EQ(j["leaks"]["scan"]["note"], mode == "segv"
                                              ? "the process was ending on SIGSEGV (signal 11)"
                                              : "the process was ending on SIGABRT (signal 6)");
  }
  Kinds kinds;
  for (const auto& [name, totals] : j["leaks"]["kinds"].items()) {
    if (name == "unknown") {
      EXPECT_EQ(totals["blocks"], 0) << mode;
      continue;
    }
    kinds[name] = {totals["bytes"].get<uint64_t>(), totals["blocks"].get<uint64_t>()};
  }
  return kinds;
}

std::string Show(const Kinds& k) {
  std::string s;
  for (const auto& [name, t] : k) {
    s += name + " " + std::to_string(t.first) + " B / " + std::to_string(t.second) + "; ";
  }
  return s;
}

// glibc's dynamic TLS vector of a thread (possibly lost in both: the thread
// control block points inside it) is one slot larger under heaprec, whose
// preloaded library has a TLS segment of its own: both suppress it with the
// same valgrind suppression file and the suppressed blocks are compared by
// count, everything else exactly.
std::string DtvSuppressions() {
  const std::string supp = MakeTempDir("leak_kinds_supp") + "/dtv.supp";
  FILE* f = fopen(supp.c_str(), "w");
  EXPECT_NE(f, nullptr);
  if (f == nullptr) return "";
  fputs(
      "{\n   thread-dtv\n   Memcheck:Leak\n   match-leak-kinds: possible\n   fun:calloc\n"
      "   ...\n   fun:_dl_allocate_tls\n}\n",
      f);
  fclose(f);
  return supp;
}

class LeakKindsTest : public testing::TestWithParam<std::string> {};

TEST_P(LeakKindsTest, SameSummaryAsMemcheck) {
  ASSERT_EQ(access("/usr/bin/valgrind", X_OK), 0) << "valgrind is missing (tools/setup.sh)";
  const std::string supp = DtvSuppressions();
  Kinds valgrind = ValgrindKinds(GetParam(), supp);
  Kinds heaprec = HeaprecKinds(GetParam(), supp);
  EXPECT_EQ(heaprec["suppressed"].second, valgrind["suppressed"].second)
      << "heaprec:  " << Show(heaprec) << "\nvalgrind: " << Show(valgrind);
  if (GetParam() != "thread_stack" && GetParam() != "all") {
    EXPECT_EQ(heaprec["suppressed"], valgrind["suppressed"]);
  }
  valgrind.erase("suppressed");
  heaprec.erase("suppressed");
  EXPECT_EQ(heaprec, valgrind) << "heaprec:  " << Show(heaprec) << "\nvalgrind: " << Show(valgrind);
}

INSTANTIATE_TEST_SUITE_P(Scenarios, LeakKindsTest,
                         testing::Values("globals", "list", "cycle", "interior", "chain",
                                         "thread_stack", "mmap", "in_block", "newarray", "plain",
                                         "all", "segv", "abort"));

}  // namespace
}  // namespace heaprec::tests
