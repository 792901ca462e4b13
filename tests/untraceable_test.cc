// heaprec on programs LD_PRELOAD cannot reach: a statically linked program
// and (when the test runs as root, able to give a file to another user) a
// setuid one. heaprec refuses with one line naming the program and why,
// exits 2, runs nothing and writes no trace, rather than an empty trace.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "tests/e2e_util.h"

namespace heaprec::tests {
namespace {

int CountLines(const std::string& text) {
  int lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

void ExpectRefused(const Recording& r, const std::string& program, const std::string& why) {
  EXPECT_EQ(r.run.exit_code, 2) << r.run.err;
  EXPECT_EQ(r.run.out, "") << "the program ran";
  EXPECT_EQ(CountLines(r.run.err), 1) << r.run.err;
  EXPECT_NE(r.run.err.find("heaprec: cannot trace " + program + ": " + why), std::string::npos)
      << r.run.err;
  EXPECT_TRUE(r.traces.empty()) << Join(r.traces);
}

TEST(UntraceableTest, StaticallyLinkedProgramIsRefused) {
  const std::string program = Runfile("recorder/static_program_bin");
  // Without heaprec it runs (so a refusal is about heaprec, not the file).
  EXPECT_EQ(RunProgram({program}).out, "static_program ran\n");
  ExpectRefused(Record("static", {program}), program, "it is statically linked");
}

TEST(UntraceableTest, SetuidProgramIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give the copy to another user";
  const std::string program = MakeTempDir("setuid") + "/c_leaks";
  {
    std::ifstream in(Runfile("tests/c_leaks"), std::ios::binary);
    std::ofstream out(program, std::ios::binary);
    out << in.rdbuf();
  }
  ASSERT_EQ(chown(program.c_str(), 65534, 65534), 0);
  ASSERT_EQ(chmod(program.c_str(), 04755), 0);
  ExpectRefused(Record("setuid", {program}), program, "it is setuid to uid 65534");
  // setgid alone is refused too.
  ASSERT_EQ(chmod(program.c_str(), 02755), 0);
  ExpectRefused(Record("setgid", {program}), program, "it is setgid to gid 65534");
  // Owned by root again, the exec changes no ids: traced as usual.
  ASSERT_EQ(chown(program.c_str(), 0, 0), 0);
  ASSERT_EQ(chmod(program.c_str(), 04755), 0);
  const Recording r = Record("setuid_root", {program});
  EXPECT_EQ(r.run.exit_code, 3) << r.run.err;
  EXPECT_EQ(r.traces.size(), 1u) << r.run.err;
}

}  // namespace
}  // namespace heaprec::tests
