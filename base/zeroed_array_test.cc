// ZeroedArray: zero bytes at first whatever T's initializers say, copies
// that keep what was written, moves that leave nothing behind.
#include "base/zeroed_array.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace heaprec::base {
namespace {

struct Slot {
  uint64_t id = 7;  // not what the array starts with: it runs no constructor
  uint32_t value = 9;
  uint32_t other = 0;
};

TEST(ZeroedArrayTest, StartsAsZeroBytes) {
  for (const size_t n : {size_t{1}, size_t{1000}, size_t{1} << 20}) {
    ZeroedArray<Slot> a(n);
    ASSERT_EQ(a.size(), n);
    size_t nonzero = 0;
    for (const Slot& s : a) nonzero += s.id != 0 || s.value != 0 || s.other != 0;
    EXPECT_EQ(nonzero, 0u) << n;
    a[n - 1].id = 5;
    EXPECT_EQ(a[n - 1].id, 5u);
  }
}

TEST(ZeroedArrayTest, CopiesAndMoves) {
  ZeroedArray<Slot> a(100);
  a[3] = {4, 5, 6};
  ZeroedArray<Slot> b(a);
  EXPECT_EQ(b[3].id, 4u);
  EXPECT_EQ(b[3].other, 6u);
  b[3].id = 10;
  EXPECT_EQ(a[3].id, 4u);  // a copy of its own
  ZeroedArray<Slot> c(std::move(b));
  EXPECT_EQ(c.size(), 100u);
  EXPECT_EQ(c[3].id, 10u);
  EXPECT_EQ(b.size(), 0u);  // NOLINT: moved from, empty
  a = c;
  EXPECT_EQ(a[3].id, 10u);
  ZeroedArray<Slot> empty(0);
  EXPECT_EQ(empty.begin(), empty.end());
}

}  // namespace
}  // namespace heaprec::base
