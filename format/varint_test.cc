// ReadVarintRun against ReadVarint one value at a time, on columns made to
// hit each path of the run reader: long runs of one-byte values (whole
// sixteens), runs broken by longer values at every offset, values up to 64
// bits, the last 15 bytes, and malformed or cut varints (a run stops at the
// same value the single reads fail at).
#include "format/varint.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace heaprec::format {
namespace {

std::vector<uint8_t> Encode(const std::vector<uint64_t>& values) {
  std::vector<uint8_t> bytes;
  for (const uint64_t v : values) PutVarint(&bytes, v);
  return bytes;
}

// What reading one at a time gives: the values before the first failure.
std::vector<uint64_t> OneByOne(const std::vector<uint8_t>& bytes, size_t count) {
  std::vector<uint64_t> out;
  const uint8_t* p = bytes.data();
  uint64_t v;
  while (out.size() < count && ReadVarint(&p, bytes.data() + bytes.size(), &v)) out.push_back(v);
  return out;
}

void ExpectSameAsOneByOne(const std::vector<uint8_t>& bytes, size_t count) {
  std::vector<uint64_t> run(count + 1, 0xdead);
  const uint8_t* p = bytes.data();
  const size_t got = ReadVarintRun(&p, bytes.data() + bytes.size(), run.data(), count);
  const std::vector<uint64_t> want = OneByOne(bytes, count);
  ASSERT_EQ(got, want.size());
  EXPECT_EQ(run[count], 0xdeadu);  // nothing written past count
  run.resize(got);
  EXPECT_EQ(run, want);
}

TEST(VarintTest, RunReadsWhatSingleReadsRead) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 400; ++trial) {
    // Mostly one-byte values, longer ones at a rate that varies by trial.
    const unsigned long_every = 1 + trial % 40;
    std::vector<uint64_t> values(rng() % 300);
    for (uint64_t& v : values) {
      v = rng() % long_every == 0 ? rng() >> (rng() % 64) : rng() % 128;
    }
    const std::vector<uint8_t> bytes = Encode(values);
    ExpectSameAsOneByOne(bytes, values.size());
    ExpectSameAsOneByOne(bytes, values.size() / 2);  // stop inside
    std::vector<uint64_t> whole(values.size());
    const uint8_t* p = bytes.data();
    ASSERT_EQ(ReadVarintRun(&p, bytes.data() + bytes.size(), whole.data(), values.size()),
              values.size());
    EXPECT_EQ(whole, values);
    EXPECT_EQ(p, bytes.data() + bytes.size());
    std::vector<uint64_t> read;
    EXPECT_TRUE(ReadVarints(bytes.data(), bytes.size(), values.size(), &read));
    EXPECT_EQ(read, values);
    if (!bytes.empty()) {
      // Cut short, or a byte turned into a continuation one: both readers
      // stop at the same value.
      ExpectSameAsOneByOne(std::vector<uint8_t>(bytes.begin(), bytes.end() - 1), values.size());
      // A value's last byte (high bit clear) made a continuation byte: that
      // value runs into the next, so the bytes no longer hold count values.
      std::vector<uint8_t> bad = bytes;
      size_t at = rng() % bad.size();
      while ((bad[at] & 0x80) != 0) at = (at + 1) % bad.size();
      bad[at] |= 0x80;
      ExpectSameAsOneByOne(bad, values.size());
      EXPECT_FALSE(ReadVarints(bad.data(), bad.size(), values.size(), &read));
    }
  }
}

TEST(VarintTest, EachLengthReadsItsValueAndNoShorterPrefix) {
  // ReadVarint alone, against PutVarint: values of 1 to 10 bytes (its
  // one-, two- and three-byte shortcuts and its loop), with bytes after
  // them and without, and every cut before the value's last byte failing.
  for (int bits = 0; bits <= 64; ++bits) {
    for (const uint64_t v : {bits == 0 ? uint64_t{0} : uint64_t{1} << (bits - 1),
                             bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1}) {
      std::vector<uint8_t> bytes;
      PutVarint(&bytes, v);
      const size_t len = bytes.size();
      for (const size_t tail : {size_t{0}, size_t{1}, size_t{5}}) {
        std::vector<uint8_t> b = bytes;
        b.insert(b.end(), tail, 0x05);
        const uint8_t* p = b.data();
        uint64_t got = 0;
        ASSERT_TRUE(ReadVarint(&p, b.data() + b.size(), &got)) << v;
        EXPECT_EQ(got, v);
        EXPECT_EQ(p, b.data() + len);
      }
      for (size_t cut = 0; cut < len; ++cut) {
        const uint8_t* p = bytes.data();
        uint64_t got = 0;
        EXPECT_FALSE(ReadVarint(&p, bytes.data() + cut, &got)) << v << " cut at " << cut;
      }
    }
  }
}

TEST(VarintTest, OverlongAndOverflowingVarintsFail) {
  const std::vector<uint8_t> eleven(11, 0x80);
  ExpectSameAsOneByOne(eleven, 1);
  const uint8_t* p = eleven.data();
  uint64_t v;
  EXPECT_FALSE(ReadVarint(&p, eleven.data() + eleven.size(), &v));
  std::vector<uint8_t> over(9, 0xff);
  over.push_back(0x02);  // bit 64
  p = over.data();
  EXPECT_FALSE(ReadVarint(&p, over.data() + over.size(), &v));
  std::vector<uint8_t> max(9, 0xff);
  max.push_back(0x01);
  p = max.data();
  ASSERT_TRUE(ReadVarint(&p, max.data() + max.size(), &v));
  EXPECT_EQ(v, UINT64_MAX);
}

}  // namespace
}  // namespace heaprec::format
