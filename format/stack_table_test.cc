#include "format/stack_table.h"

#include <gtest/gtest.h>

namespace heaprec::format {
namespace {

TEST(StackTableTest, FramesAreInnermostFirstAndShareOuterFrames) {
  StackTable t;
  ASSERT_TRUE(t.Add({1, 0, 0x100}));  // main
  ASSERT_TRUE(t.Add({2, 1, 0x200}));  // main -> a
  ASSERT_TRUE(t.Add({3, 1, 0x300}));  // main -> b
  ASSERT_TRUE(t.Add({4, 2, 0x210}));  // main -> a -> c
  EXPECT_EQ(t.Frames(4), (std::vector<uint64_t>{0x210, 0x200, 0x100}));
  EXPECT_EQ(t.Frames(3), (std::vector<uint64_t>{0x300, 0x100}));
  EXPECT_TRUE(t.Frames(0).empty());
  EXPECT_TRUE(t.Frames(99).empty());
  EXPECT_EQ(t.size(), 4u);
}

TEST(StackTableTest, RejectsOutOfOrderIdsAndLaterParents) {
  StackTable t;
  EXPECT_FALSE(t.Add({2, 0, 0x1}));
  EXPECT_TRUE(t.Add({1, 0, 0x1}));
  EXPECT_FALSE(t.Add({2, 2, 0x1}));
  EXPECT_FALSE(t.Add({2, 5, 0x1}));
  EXPECT_EQ(t.size(), 1u);
}

}  // namespace
}  // namespace heaprec::format
