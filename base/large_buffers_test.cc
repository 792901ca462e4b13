// Large buffers: small blocks from malloc, large ones mapped, both usable
// to their last byte and aligned; zstd runs with it at the window size
// heaprec's traces use.
#include "base/large_buffers.h"

#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_customMem
#include <gtest/gtest.h>
#include <zstd.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace heaprec::base {
namespace {

TEST(LargeBuffersTest, SmallBlocksComeFromMallocLargeOnesAreMapped) {
  for (const size_t size :
       {size_t{1}, size_t{4096}, kLargeBufferMin - 1, kLargeBufferMin, size_t{33} << 20}) {
    void* p = AllocateLargeBuffer(nullptr, size);
    ASSERT_NE(p, nullptr) << size;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 16, 0u) << size;
    EXPECT_EQ(IsMappedLargeBuffer(p), size >= kLargeBufferMin) << size;
    std::memset(p, 0xab, size);
    EXPECT_EQ(static_cast<unsigned char*>(p)[size - 1], 0xab);
    FreeLargeBuffer(nullptr, p);
  }
  FreeLargeBuffer(nullptr, nullptr);  // as free(NULL)
}

TEST(LargeBuffersTest, ZstdRoundTripsThroughIt) {
  // A 2^25 window and level 7 (a context of ~40 MiB): its tables are mapped.
  std::vector<uint8_t> data(6 << 20);
  uint64_t x = 12345;
  for (size_t i = 0; i < data.size(); ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    data[i] = static_cast<uint8_t>(i % 251 < 200 ? i % 7 : x >> 56);
  }
  ZSTD_CCtx* c = ZSTD_createCCtx_advanced({AllocateLargeBuffer, FreeLargeBuffer, nullptr});
  ASSERT_NE(c, nullptr);
  ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 7);
  ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, 25);
  std::vector<uint8_t> packed(ZSTD_compressBound(data.size()));
  const size_t n = ZSTD_compress2(c, packed.data(), packed.size(), data.data(), data.size());
  ASSERT_FALSE(ZSTD_isError(n)) << ZSTD_getErrorName(n);
  ZSTD_freeCCtx(c);

  ZSTD_DCtx* d = ZSTD_createDCtx_advanced({AllocateLargeBuffer, FreeLargeBuffer, nullptr});
  ASSERT_NE(d, nullptr);
  std::vector<uint8_t> back(data.size());
  const size_t m = ZSTD_decompressDCtx(d, back.data(), back.size(), packed.data(), n);
  ASSERT_FALSE(ZSTD_isError(m)) << ZSTD_getErrorName(m);
  EXPECT_EQ(m, data.size());
  EXPECT_EQ(back, data);
  ZSTD_freeDCtx(d);
}

}  // namespace
}  // namespace heaprec::base
