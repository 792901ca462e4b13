// BlockIndex::Find against memcheck's binary search (find_chunk_for) on
// random block sets: dense and sparse, zero-size blocks, blocks touching,
// huge blocks, far-apart arenas; values at every edge.
#include "recorder/leakscan/block_index.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace heaprec::recorder::leakscan {
namespace {

uint32_t FindChunkFor(const std::vector<LiveBlock>& b, uint64_t v) {
  size_t lo = 0, hi = b.size();
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (v < b[mid].address) {
      hi = mid;
    } else if (v >= LookupEnd(b[mid])) {
      lo = mid + 1;
    } else {
      return static_cast<uint32_t>(mid);
    }
  }
  return kNoBlock;
}

TEST(BlockIndex, MatchesBinarySearch) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 300; ++round) {
    std::vector<LiveBlock> blocks;
    uint64_t at = 0x1000 + rng() % 4096;
    const size_t n = rng() % 2000;
    for (size_t i = 0; i < n; ++i) {
      uint64_t size;
      switch (rng() % 8) {
        case 0:
          size = 0;
          break;
        case 1:
          size = 1 + rng() % 7;
          break;
        case 2:
          size = 1 << (10 + rng() % 12);
          break;
        default:
          size = 16 + rng() % 200;
          break;
      }
      blocks.push_back({at, size});
      at = LookupEnd(blocks.back());
      switch (rng() % 10) {
        case 0:
          break;  // touching
        case 1:
          at += uint64_t{1} << (20 + rng() % 24);
          break;  // another arena
        default:
          at += rng() % 64;
          break;
      }
    }
    ASSERT_EQ(CheckBlocks(blocks), "");
    const BlockIndex index(blocks);
    std::vector<uint64_t> probes = {0, 1, UINT64_MAX, 0x1000};
    for (const LiveBlock& b : blocks) {
      for (uint64_t v : {b.address - 1, b.address, b.address + 1, b.address + b.size - 1,
                         b.address + b.size, b.address + b.size + 1, b.address + b.size / 2}) {
        probes.push_back(v);
      }
    }
    for (int k = 0; k < 2000 && n > 0; ++k) {
      probes.push_back(blocks[0].address + rng() % (at - blocks[0].address + 100));
    }
    for (const uint64_t v : probes) {
      ASSERT_EQ(index.Find(v), FindChunkFor(blocks, v)) << "round " << round << " value " << v;
    }
    EXPECT_LE(index.bucket_count(), std::max<size_t>(n, 64) + 2 * n + 2);
  }
}

TEST(BlockIndex, CheckBlocksSaysWhatIsWrong) {
  EXPECT_EQ(CheckBlocks({}), "");
  EXPECT_EQ(CheckBlocks(std::vector<LiveBlock>{{0x1000, 0}, {0x1001, 4}}), "");
  EXPECT_NE(CheckBlocks(std::vector<LiveBlock>{{0x1000, 0}, {0x1000, 4}}), "");
  EXPECT_NE(CheckBlocks(std::vector<LiveBlock>{{0, 16}}), "");
  EXPECT_NE(CheckBlocks(std::vector<LiveBlock>{{UINT64_MAX - 4, 16}}), "");
}

}  // namespace
}  // namespace heaprec::recorder::leakscan
