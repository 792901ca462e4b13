// OpenTable against std::unordered_map: the same puts, takes and gets on
// keys laid out as allocators lay out addresses (16, 32 and 48 bytes apart,
// page-aligned, random) and as numbers (consecutive), in both placements
// (hashed alone, grouped by address), through growth and backward-shift
// deletion.
#include "base/open_table.h"

#include <gtest/gtest.h>

#include <random>
#include <unordered_map>
#include <vector>

namespace heaprec::base {
namespace {

template <int kGroupedBits>
void CheckAgainstMap(const std::vector<uint64_t>& keys, uint32_t seed) {
  OpenTable<uint64_t, kGroupedBits> table;
  std::unordered_map<uint64_t, uint64_t> want;
  std::mt19937 rng(seed);
  for (size_t round = 0; round < 3; ++round) {
    for (size_t i = 0; i < keys.size(); ++i) {
      const uint64_t key = keys[(i * 7 + round) % keys.size()];
      switch (rng() % 4) {
        case 0:
        case 1: {
          uint64_t old = 0;
          const bool present = table.Put(key, i, &old);
          const auto it = want.find(key);
          ASSERT_EQ(present, it != want.end()) << key;
          if (present) EXPECT_EQ(old, it->second);
          want[key] = i;
          break;
        }
        case 2: {
          uint64_t out = 0;
          const bool taken = table.Take(key, &out);
          const auto it = want.find(key);
          ASSERT_EQ(taken, it != want.end()) << key;
          if (taken) {
            EXPECT_EQ(out, it->second);
            want.erase(it);
          }
          break;
        }
        default: {
          const uint64_t* got = table.Get(key);
          const auto it = want.find(key);
          ASSERT_EQ(got != nullptr, it != want.end()) << key;
          if (got != nullptr) EXPECT_EQ(*got, it->second);
        }
      }
    }
    ASSERT_EQ(table.size(), want.size());
    size_t seen = 0;
    table.ForEach([&](uint64_t key, const uint64_t& value) {
      ++seen;
      const auto it = want.find(key);
      ASSERT_NE(it, want.end()) << key;
      EXPECT_EQ(value, it->second);
    });
    EXPECT_EQ(seen, want.size());
  }
}

std::vector<uint64_t> Spaced(uint64_t step, size_t n) {
  std::vector<uint64_t> keys;
  for (size_t i = 0; i < n; ++i) keys.push_back(0x555555600010ull + i * step);
  return keys;
}

std::vector<uint64_t> Random(size_t n) {
  std::mt19937_64 rng(99);
  std::vector<uint64_t> keys;
  while (keys.size() < n) {
    const uint64_t k = rng() & ~uint64_t{15};
    if (k != 0) keys.push_back(k);
  }
  return keys;
}

TEST(OpenTableTest, AddressLayoutsInBothPlacements) {
  const std::vector<std::vector<uint64_t>> layouts = {
      Spaced(16, 20000),   Spaced(32, 20000),     Spaced(48, 20000),
      Spaced(4096, 20000), Spaced(1 << 20, 5000), Random(20000),
  };
  for (size_t i = 0; i < layouts.size(); ++i) {
    SCOPED_TRACE(i);
    CheckAgainstMap<-1>(layouts[i], static_cast<uint32_t>(i));
    CheckAgainstMap<4>(layouts[i], static_cast<uint32_t>(i));
  }
}

TEST(OpenTableTest, ConsecutiveNumbers) {
  CheckAgainstMap<-1>(Spaced(1, 30000), 5);
  CheckAgainstMap<0>(Spaced(1, 30000), 6);
  // Numbers grouped by 16 (BlockMap's long-lived blocks) whose survivors are
  // spaced out: one per group, or all on one group offset.
  CheckAgainstMap<0>(Spaced(16, 20000), 7);
  CheckAgainstMap<0>(Spaced(1 << 16, 5000), 8);
}

TEST(OpenTableTest, ARunOfNearbyAddressesSharesLines) {
  // Grouped by 16-byte granule: 16 consecutive granules of one 256-byte
  // window land in one 16-slot group; hashed alone they scatter.
  OpenTable<uint64_t, 4> grouped;
  OpenTable<uint64_t> alone;
  uint64_t old;
  for (uint64_t i = 0; i < 16; ++i) {
    grouped.Put(0x7f0000001000ull + i * 16, i + 1, &old);
    alone.Put(0x7f0000001000ull + i * 16, i + 1, &old);
  }
  auto span = [](const auto& table) {
    const uint64_t* lo = nullptr;
    const uint64_t* hi = nullptr;
    table.ForEach([&](uint64_t, const uint64_t& v) {
      if (lo == nullptr || &v < lo) lo = &v;
      if (hi == nullptr || &v > hi) hi = &v;
    });
    return reinterpret_cast<const char*>(hi) - reinterpret_cast<const char*>(lo);
  };
  EXPECT_EQ(span(grouped), 15 * 16);  // 16 slots of 16 bytes, side by side
  EXPECT_GT(span(alone), 15 * 16);
}

}  // namespace
}  // namespace heaprec::base
