// BatchReader: every readable byte of every unit reaches the visitor once,
// in order, whatever the batch size, merging, splitting and holes.
#include "recorder/leakscan/batch_reader.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "recorder/leakscan/fake_memory.h"

namespace heaprec::recorder::leakscan {
namespace {

constexpr uint64_t kBase = 0x100000;
constexpr uint64_t kSize = 0x40000;

uint8_t ByteAt(uint64_t address) { return static_cast<uint8_t>(address * 131 >> 3); }

struct Seen {
  size_t unit;
  uint64_t address;
  uint64_t length;
};

TEST(BatchReader, RandomUnitsHolesAndBatchSizes) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 300; ++round) {
    FakeMemory memory;
    memory.Map(kBase, kSize);
    for (uint64_t a = kBase; a < kBase + kSize; ++a) {
      const uint8_t b = ByteAt(a);
      memory.WriteBytes(a, &b, 1);
    }
    std::vector<std::pair<uint64_t, uint64_t>> holes;
    for (int h = static_cast<int>(rng() % 3); h > 0; --h) {
      const uint64_t page = kBase + 4096 * (rng() % (kSize / 4096));
      memory.MakeUnreadable(page, 4096);
      holes.push_back({page, page + 4096});
    }
    // Ascending units (sometimes overlapping or out of order, which must
    // not merge), sometimes empty, some longer than a batch.
    std::vector<AddressRange> units;
    uint64_t at = kBase + rng() % 64;
    while (at < kBase + kSize - 16) {
      const uint64_t length = rng() % 8 == 0 ? rng() % 30000 : rng() % 300;
      const uint64_t len = std::min(length, kBase + kSize - at);
      units.push_back({at, len});
      if (rng() % 10 == 0) {
        at = at > kBase + 500 ? at - rng() % 500 : at;  // back: no merge with the next
      } else {
        at += len + rng() % 200;
      }
    }
    const uint64_t batch = rng() % 2 ? 4096 : 1 + rng() % 70000;
    BatchReader reader(&memory, batch, rng() % 3 == 0 ? 0 : rng() % 5000);
    std::vector<Seen> seen;
    bool bytes_ok = true;
    reader.Scan(
        units.size(), [&](size_t i) { return units[i]; },
        [&](size_t i, uint64_t address, const std::byte* bytes, uint64_t length) {
          seen.push_back({i, address, length});
          for (uint64_t k = 0; k < length; ++k) {
            bytes_ok = bytes_ok && static_cast<uint8_t>(bytes[k]) == ByteAt(address + k);
          }
        });
    ASSERT_TRUE(bytes_ok) << "round " << round;
    // Rebuild each unit's readable bytes from the pieces.
    size_t s = 0;
    for (size_t i = 0; i < units.size(); ++i) {
      uint64_t a = units[i].address;
      const uint64_t end = a + units[i].length;
      while (a < end) {
        bool in_hole = false;
        for (const auto& h : holes) in_hole = in_hole || (a >= h.first && a < h.second);
        if (in_hole) {
          ++a;
          continue;
        }
        ASSERT_LT(s, seen.size()) << "round " << round << " unit " << i;
        ASSERT_EQ(seen[s].unit, i) << "round " << round;
        ASSERT_LE(seen[s].address, a) << "round " << round;
        ASSERT_GT(seen[s].address + seen[s].length, a) << "round " << round;
        a = seen[s].address + seen[s].length;
        // A piece ends at the unit's end, at a hole, or at an 8-aligned cut.
        ASSERT_TRUE(a == end || a % 8 == 0) << "round " << round;
        ++s;
      }
    }
    EXPECT_EQ(s, seen.size()) << "round " << round;
    EXPECT_LE(memory.counts().max_requests_in_a_call, kMaxReadRequests);
  }
}

TEST(BatchReader, AtMostOneThousandTwentyFourRangesACall) {
  FakeMemory memory;
  memory.Map(kBase, kSize);
  BatchReader reader(&memory, 1 << 20, 0);
  uint64_t pieces = 0;
  reader.Scan(
      3000,
      [](size_t i) {
        return AddressRange{kBase + 64 * i, 16};
      },
      [&](size_t, uint64_t, const std::byte*, uint64_t) { ++pieces; });
  EXPECT_EQ(pieces, 3000u);
  EXPECT_EQ(memory.counts().calls, 3u);
  EXPECT_EQ(memory.counts().max_requests_in_a_call, kMaxReadRequests);
  EXPECT_EQ(reader.totals().bytes_read, 3000u * 16);
}

}  // namespace
}  // namespace heaprec::recorder::leakscan
