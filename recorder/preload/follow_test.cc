// Follow patterns: globs on any of a program's names, --follow= narrowing,
// --no-follow= excluding, commas separating patterns.
#include "recorder/preload/follow.h"

#include <gtest/gtest.h>

namespace heaprec::recorder::preload {
namespace {

// A shell script run as `python3`: execve's file, the shell, argv[0].
const char* const kScript[] = {"python3", "dash", "sh"};
const char* const kPython[] = {"python3", "python3.11", "python3"};
const char* const kCc1[] = {"cc1", "cc1", "/usr/lib/gcc/x86_64-linux-gnu/12/cc1"};

TEST(FollowTest, PatternsMatchAnyNameByGlob) {
  EXPECT_TRUE(AnyPatternMatches("sh", kScript, 3));    // argv[0]
  EXPECT_TRUE(AnyPatternMatches("dash", kScript, 3));  // the executable
  EXPECT_TRUE(AnyPatternMatches("python3.*", kPython, 3));
  EXPECT_TRUE(AnyPatternMatches("py*", kPython, 3));
  EXPECT_TRUE(AnyPatternMatches("cc?", kCc1, 3));
  EXPECT_TRUE(AnyPatternMatches("[bc]c1", kCc1, 3));
  EXPECT_FALSE(AnyPatternMatches("python", kPython, 3));  // whole names only
  EXPECT_FALSE(AnyPatternMatches("", kPython, 3));
  EXPECT_FALSE(AnyPatternMatches(nullptr, kPython, 3));
  EXPECT_TRUE(AnyPatternMatches("env,,readlink,sh", kScript, 3));  // empty items skipped
  EXPECT_FALSE(AnyPatternMatches("env,readlink", kScript, 3));
  const std::string long_pattern(300, '*');
  EXPECT_FALSE(AnyPatternMatches(long_pattern.c_str(), kPython, 3));
  const char* const missing[] = {nullptr, "", "tool"};
  EXPECT_TRUE(AnyPatternMatches("tool", missing, 3));
  EXPECT_FALSE(AnyPatternMatches("*", missing, 2));
}

TEST(FollowTest, OnlyNarrowsAndSkipExcludes) {
  EXPECT_TRUE(ProgramFollowed(nullptr, nullptr, kScript, 3));
  EXPECT_TRUE(ProgramFollowed("", "", kScript, 3));
  EXPECT_FALSE(ProgramFollowed(nullptr, "sh,env", kScript, 3));
  EXPECT_TRUE(ProgramFollowed(nullptr, "sh,env", kPython, 3));
  EXPECT_TRUE(ProgramFollowed("python3*", nullptr, kPython, 3));
  EXPECT_FALSE(ProgramFollowed("cc1*", nullptr, kPython, 3));
  // Both: in the first set and not in the second.
  EXPECT_FALSE(ProgramFollowed("python3", "sh", kScript, 3));
  EXPECT_TRUE(ProgramFollowed("python3", "sh", kPython, 3));
}

}  // namespace
}  // namespace heaprec::recorder::preload
