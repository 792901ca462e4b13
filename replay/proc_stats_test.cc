// proc_stats: anonymous RSS follows memory touched, and a file's resident
// pages are found by its path in smaps, so a bench worker can count an
// allocator's start-up memory.
#include "replay/proc_stats.h"

#include <gtest/gtest.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <cstring>

namespace heaprec::replay {
namespace {

TEST(ProcStats, AnonRssGrowsByTheMemoryTouched) {
  constexpr size_t kBytes = 16 << 20;
  const uint64_t before = AnonRssBytes();
  ASSERT_GT(before, 0u);
  void* p = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  std::memset(p, 1, kBytes);
  const uint64_t after = AnonRssBytes();
  munmap(p, kBytes);
  EXPECT_GE(after, before + kBytes);
  EXPECT_LT(after, before + kBytes + (4 << 20));
}

TEST(ProcStats, FileRssCountsTheNamedFilesResidentPages) {
  char exe[PATH_MAX];
  ASSERT_NE(realpath("/proc/self/exe", exe), nullptr);
  // This test's own code runs from the file, so some of it is resident.
  const uint64_t exe_rss = FileRssBytes(exe);
  EXPECT_GT(exe_rss, 0u);
  EXPECT_EQ(exe_rss % 4096, 0u);
  EXPECT_LE(exe_rss, RssBytes());
  EXPECT_EQ(FileRssBytes("/nonexistent/libfoo.so"), 0u);
  // A suffix of the path is not the file.
  EXPECT_EQ(FileRssBytes(std::strrchr(exe, '/')), 0u);
}

}  // namespace
}  // namespace heaprec::replay
