// NodeTable: each (parent, address) gets one node, kept across growth; the
// same address under another parent is another node.
#include "recorder/launcher/node_table.h"

#include <gtest/gtest.h>

#include <map>
#include <utility>

namespace heaprec::recorder::launcher {
namespace {

TEST(NodeTableTest, OneNodePerParentAndAddressThroughGrowth) {
  NodeTable t;
  std::map<std::pair<uint32_t, uint64_t>, uint32_t> want;
  uint32_t next = 1;
  // A tree 3 levels deep over few addresses: the same addresses recur under
  // many parents, and 20,000 nodes make the table grow several times.
  for (uint64_t a = 0; a < 20; ++a) {
    for (uint32_t parent = 0; parent < 1000; ++parent) {
      const uint64_t address = 0x401000 + 16 * a;
      bool inserted = false;
      const uint32_t node = t.FindOrInsert(parent, address, next, &inserted);
      ASSERT_TRUE(inserted) << parent << " " << address;
      EXPECT_EQ(node, next);
      want[{parent, address}] = next++;
    }
  }
  EXPECT_EQ(t.size(), want.size());
  for (const auto& [key, node] : want) {
    bool inserted = true;
    EXPECT_EQ(t.FindOrInsert(key.first, key.second, next, &inserted), node);
    EXPECT_FALSE(inserted);
  }
  EXPECT_EQ(t.size(), want.size());
}

}  // namespace
}  // namespace heaprec::recorder::launcher
