#include "recorder/launcher/output_path.h"

#include <gtest/gtest.h>

namespace heaprec::recorder::launcher {
namespace {

TEST(OutputPathTest, ExpandsPidAndName) {
  EXPECT_EQ(ExpandPattern("", 42, "app"), "heaprec.app.42.zst");
  EXPECT_EQ(ExpandPattern("/tmp/%n-%p.zst", 7, "srv"), "/tmp/srv-7.zst");
  EXPECT_EQ(ExpandPattern("100%%.%p", 1, "x"), "100%.1");
  EXPECT_EQ(ExpandPattern("odd%q%", 1, "x"), "odd%q%");
}

TEST(OutputPathTest, AlternativesKeepTheExtension) {
  EXPECT_EQ(Alternative("a/t.zst", 0), "a/t.zst");
  EXPECT_EQ(Alternative("a/t.zst", 1), "a/t.1.zst");
  EXPECT_EQ(Alternative("a/t.zst", 12), "a/t.12.zst");
  EXPECT_EQ(Alternative("trace", 2), "trace.2");
}

}  // namespace
}  // namespace heaprec::recorder::launcher
