// BlockNumbers: blocks numbered in the order made, frees paired with them,
// every realloc form, double frees named, and released addresses forgotten
// once too many pile up.
#include "format/block_numbers.h"

#include <gtest/gtest.h>

#include <map>

namespace heaprec::format {
namespace {

Event Alloc(uint64_t a) { return {.api = Api::kMalloc, .address = a, .size = 8}; }
Event Free(uint64_t a) { return {.api = Api::kFree, .address = a}; }
Event Realloc(uint64_t old, uint64_t a, uint64_t size) {
  return {.api = Api::kRealloc, .address = a, .size = size, .old_address = old};
}

Event Assigned(BlockNumbers* b, Event e) {
  b->Assign(&e);
  return e;
}

TEST(BlockNumbersTest, PairsFreesReallocsAndDoubleFrees) {
  BlockNumbers b;
  EXPECT_EQ(Assigned(&b, Alloc(0x10)).block, 1u);
  EXPECT_EQ(Assigned(&b, Alloc(0x20)).block, 2u);
  EXPECT_EQ(Assigned(&b, Free(0x10)).block, 1u);
  EXPECT_EQ(Assigned(&b, Free(0x10)).block, 1u);  // double free: names block 1 again
  EXPECT_EQ(Assigned(&b, Free(0x30)).block, 0u);  // never allocated
  // realloc of a released address: unknown, and nothing is made... unless it
  // returns a block.
  const Event r = Assigned(&b, Realloc(0x10, 0, 16));
  EXPECT_EQ(r.old_block, 0u);
  // Moved realloc: block 2 released at 0x20, block 3 made at 0x40.
  const Event m = Assigned(&b, Realloc(0x20, 0x40, 32));
  EXPECT_EQ(m.old_block, 2u);
  EXPECT_EQ(m.block, 3u);
  EXPECT_EQ(Assigned(&b, Free(0x20)).block, 2u);  // free after realloc moved it
  // The address made again: an ordinary block.
  EXPECT_EQ(Assigned(&b, Alloc(0x10)).block, 4u);
  EXPECT_EQ(Assigned(&b, Free(0x10)).block, 4u);
  // realloc(p, 0) releases.
  EXPECT_EQ(Assigned(&b, Realloc(0x40, 0, 0)).old_block, 3u);
  EXPECT_EQ(Assigned(&b, Free(0x40)).block, 3u);
  EXPECT_EQ(b.made(), 4u);
  EXPECT_EQ(b.live(), 0u);
}

TEST(BlockNumbersTest, SwitchesOfRecordingForgetReleasedAddresses) {
  BlockNumbers b;
  EXPECT_EQ(Assigned(&b, Alloc(0x10)).block, 1u);
  EXPECT_EQ(Assigned(&b, Alloc(0x20)).block, 2u);
  EXPECT_EQ(Assigned(&b, Free(0x10)).block, 1u);
  b.RecordingSwitched(/*paused=*/true);
  // A paused allocation may have reused 0x10: unknown, not a double free.
  EXPECT_EQ(Assigned(&b, Free(0x10)).block, 0u);
  // A live block is still released while paused, but not remembered.
  EXPECT_EQ(Assigned(&b, Free(0x20)).block, 2u);
  EXPECT_EQ(Assigned(&b, Free(0x20)).block, 0u);
  b.RecordingSwitched(/*paused=*/false);
  EXPECT_EQ(Assigned(&b, Alloc(0x30)).block, 3u);
  EXPECT_EQ(Assigned(&b, Free(0x30)).block, 3u);
  EXPECT_EQ(Assigned(&b, Free(0x30)).block, 3u);  // recording again: a double free
  EXPECT_EQ(b.live(), 0u);
}

TEST(BlockNumbersTest, ReleasedAddressesAreForgottenWhenTheirSlotIsTaken) {
  BlockNumbers b;
  // Two addresses sharing a released slot, and one in another slot.
  const uint64_t first = 16;
  uint64_t same = 32, other = 32;
  while (BlockNumbers::ReleasedSlot(same) != BlockNumbers::ReleasedSlot(first)) same += 16;
  while (BlockNumbers::ReleasedSlot(other) == BlockNumbers::ReleasedSlot(first)) other += 16;
  Assigned(&b, Alloc(first));  // block 1
  Assigned(&b, Alloc(same));   // block 2
  Assigned(&b, Alloc(other));  // block 3
  Assigned(&b, Free(first));   // remembered in its slot
  Assigned(&b, Free(other));   // another slot: first stays
  EXPECT_EQ(Assigned(&b, Free(first)).block, 1u);
  Assigned(&b, Free(same));                        // takes first's slot
  EXPECT_EQ(Assigned(&b, Free(first)).block, 0u);  // forgotten
  EXPECT_EQ(Assigned(&b, Free(same)).block, 2u);
  EXPECT_EQ(Assigned(&b, Free(other)).block, 3u);
  // Made again: forgotten as released, live again.
  EXPECT_EQ(Assigned(&b, Alloc(same)).block, 4u);
  EXPECT_EQ(Assigned(&b, Free(same)).block, 4u);
  EXPECT_EQ(b.live(), 0u);
}

// The live blocks with the sizes they were made with: a realloc's new size,
// nothing of a freed or failed call.
TEST(BlockNumbersTest, LiveBlocksKeepTheirSizes) {
  BlockNumbers b;
  Event a{.api = Api::kMalloc, .address = 0x10, .size = 24};
  Event c{.api = Api::kCalloc, .address = 0x40, .size = 100};
  Event failed{.api = Api::kMalloc, .address = 0, .size = 1 << 30};
  Event grown{.api = Api::kRealloc, .address = 0x80, .size = 48, .old_address = 0x10};
  Event in_place{.api = Api::kRealloc, .address = 0x40, .size = 8, .old_address = 0x40};
  for (Event* e : {&a, &c, &failed, &grown, &in_place}) b.Assign(e);
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> live;
  b.ForEachLive([&](uint64_t address, uint64_t block, uint64_t size) {
    live[address] = {block, size};
  });
  EXPECT_EQ(live,
            (std::map<uint64_t, std::pair<uint64_t, uint64_t>>{{0x40, {4, 8}}, {0x80, {3, 48}}}));
}

// The running live bytes and their peak, as heapreplay's live heap counts
// them: a moved realloc holds only the new block, a realloc in place the new
// size, a failed one and a free of an unknown address change nothing.
TEST(BlockNumbersTest, LiveBytesAndTheirPeak) {
  BlockNumbers b;
  const auto step = [&](Event e) {
    b.Assign(&e);
    return std::pair<uint64_t, uint64_t>{b.live_bytes(), b.peak_bytes()};
  };
  using P = std::pair<uint64_t, uint64_t>;
  EXPECT_EQ(step({.api = Api::kMalloc, .address = 0x10, .size = 24}), P(24, 24));
  EXPECT_EQ(step({.api = Api::kCalloc, .address = 0x40, .size = 100}), P(124, 124));
  EXPECT_EQ(step({.api = Api::kMalloc, .address = 0, .size = 1 << 30}), P(124, 124));
  EXPECT_EQ(step(Realloc(0x10, 0x80, 48)), P(148, 148));  // moved: 24 out, 48 in
  EXPECT_EQ(step(Realloc(0x40, 0x40, 8)), P(56, 148));    // in place, smaller
  EXPECT_EQ(step(Realloc(0x80, 0, 4096)), P(56, 148));    // failed: keeps its block
  EXPECT_EQ(step(Free(0x999)), P(56, 148));               // never made
  EXPECT_EQ(step(Free(0x80)), P(8, 148));
  EXPECT_EQ(step(Realloc(0x40, 0, 0)), P(0, 148));  // realloc(p, 0) frees
  EXPECT_EQ(step(Free(0x40)), P(0, 148));           // double free
}

}  // namespace
}  // namespace heaprec::format
