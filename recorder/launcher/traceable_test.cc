// WhyUntraceable on a static program, a dynamic one, setuid and setgid
// copies of a dynamic one, a script and non-programs; ResolveCommand's PATH
// search.
#include "recorder/launcher/traceable.h"

#include <gtest/gtest.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace heaprec::recorder::launcher {
namespace {

std::string SelfExe() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, n) : "";
}

std::string StaticProgram() {
  const char* dir = getenv("TEST_SRCDIR");
  return std::string(dir != nullptr ? dir : ".") + "/heaprec/recorder/static_program_bin";
}

std::string CopyOfSelf(const std::string& name, mode_t mode) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ifstream in(SelfExe(), std::ios::binary);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << in.rdbuf();
  out.close();
  chmod(path.c_str(), mode);
  return path;
}

TEST(TraceableTest, StaticProgramIsRefused) {
  const std::string why = WhyUntraceable(StaticProgram(), getuid(), getgid());
  EXPECT_NE(why.find("statically linked"), std::string::npos) << why;
}

TEST(TraceableTest, DynamicProgramIsTraceable) {
  EXPECT_EQ(WhyUntraceable(SelfExe(), getuid(), getgid()), "");
}

TEST(TraceableTest, SetuidToAnotherUserIsRefused) {
  const std::string path = CopyOfSelf("setuid_copy", 04755);
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  ASSERT_NE(st.st_mode & S_ISUID, 0u);
  const std::string why = WhyUntraceable(path, st.st_uid + 1, st.st_gid);
  EXPECT_NE(why.find("setuid to uid " + std::to_string(st.st_uid)), std::string::npos) << why;
  // Run by its owner the exec changes no ids: traceable.
  EXPECT_EQ(WhyUntraceable(path, st.st_uid, st.st_gid), "");
}

TEST(TraceableTest, SetgidToAnotherGroupIsRefused) {
  const std::string path = CopyOfSelf("setgid_copy", 02755);
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  ASSERT_NE(st.st_mode & S_ISGID, 0u);
  const std::string why = WhyUntraceable(path, st.st_uid, st.st_gid + 1);
  EXPECT_NE(why.find("setgid to gid " + std::to_string(st.st_gid)), std::string::npos) << why;
  EXPECT_EQ(WhyUntraceable(path, st.st_uid, st.st_gid), "");
}

TEST(TraceableTest, WhatIsNotAProgramIsLeftToExec) {
  const std::string script = ::testing::TempDir() + "/script.sh";
  std::ofstream(script) << "#!/bin/sh\necho hi\n";
  chmod(script.c_str(), 0755);
  EXPECT_EQ(WhyUntraceable(script, getuid(), getgid()), "");
  EXPECT_EQ(WhyUntraceable(::testing::TempDir(), getuid(), getgid()), "");
  EXPECT_EQ(WhyUntraceable(::testing::TempDir() + "/missing", getuid(), getgid()), "");
  EXPECT_EQ(WhyUntraceable("", getuid(), getgid()), "");
}

TEST(TraceableTest, ResolveCommandSearchesPathLikeExecvp) {
  const std::string dir1 = ::testing::TempDir() + "/path1";
  const std::string dir2 = ::testing::TempDir() + "/path2";
  mkdir(dir1.c_str(), 0755);
  mkdir(dir2.c_str(), 0755);
  // Not executable in dir1: skipped; the executable one in dir2 is found.
  std::ofstream(dir1 + "/tool") << "#!/bin/sh\n";
  chmod((dir1 + "/tool").c_str(), 0644);
  std::ofstream(dir2 + "/tool") << "#!/bin/sh\n";
  chmod((dir2 + "/tool").c_str(), 0755);
  const char* old = getenv("PATH");
  const std::string saved = old != nullptr ? old : "";
  setenv("PATH", (dir1 + ":" + dir2).c_str(), 1);
  EXPECT_EQ(ResolveCommand("tool"), dir2 + "/tool");
  EXPECT_EQ(ResolveCommand("no_such_tool"), "");
  EXPECT_EQ(ResolveCommand("./relative/tool"), "./relative/tool");
  EXPECT_EQ(ResolveCommand(""), "");
  setenv("PATH", saved.c_str(), 1);
}

}  // namespace
}  // namespace heaprec::recorder::launcher
