// FrameReadAhead, with its thread and without, gives exactly what
// FrameReader::Next gives, chunk by chunk (bytes, offsets, frame starts),
// and ends the same way for whole, cut and damaged traces; destroying it
// in the middle of a read stops its thread.
#include "format/frame_read_ahead.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "format/byte_io.h"
#include "format/test_traces.h"

namespace heaprec::format {
namespace {

// Everything one Next says, as a line.
std::string Describe(FrameReader::Status s, const std::vector<uint8_t>& chunk, uint64_t offset,
                     uint64_t chunk_offset, bool starts_frame, uint64_t error_offset,
                     const std::string& error) {
  // A chunk's bytes; after another status the buffer holds nothing promised.
  const std::string bytes =
      s != FrameReader::Status::kChunk
          ? ""
          : " bytes=" + std::to_string(chunk.size()) + ":" +
                std::to_string(std::hash<std::string>()(std::string(chunk.begin(), chunk.end())));
  return std::to_string(static_cast<int>(s)) + bytes + " offset=" + std::to_string(offset) +
         " chunk_offset=" + std::to_string(chunk_offset) +
         " frame=" + std::to_string(starts_frame) +
         (s == FrameReader::Status::kError ? " error=" + error + "@" + std::to_string(error_offset)
                                           : "");
}

// Every Next of r (a FrameReader or a FrameReadAhead: the same calls) up
// to the first status other than kChunk.
template <typename Reader>
std::vector<std::string> Collect(Reader& r) {
  std::vector<std::string> out;
  std::vector<uint8_t> chunk;
  for (;;) {
    const FrameReader::Status s = r.Next(&chunk);
    out.push_back(Describe(s, chunk, r.offset(), r.chunk_offset(), r.chunk_starts_frame(),
                           r.error_offset(), r.error()));
    if (s != FrameReader::Status::kChunk) return out;
  }
}

std::vector<std::string> Plain(const std::string& bytes) {
  FrameReader frames(std::make_unique<MemorySource>(bytes.data(), bytes.size()));
  if (frames.ReadHeader() != FrameReader::Status::kChunk) return {};
  return Collect(frames);
}

std::vector<std::string> Ahead(const std::string& bytes, bool thread) {
  FrameReader frames(std::make_unique<MemorySource>(bytes.data(), bytes.size()));
  if (frames.ReadHeader() != FrameReader::Status::kChunk) return {};
  FrameReadAhead ahead(&frames, thread);
  return Collect(ahead);
}

void ExpectSame(const std::string& bytes, const std::string& what) {
  const std::vector<std::string> plain = Plain(bytes);
  ASSERT_FALSE(plain.empty()) << what;
  EXPECT_EQ(Ahead(bytes, false), plain) << what;
  EXPECT_EQ(Ahead(bytes, true), plain) << what;
}

TEST(FrameReadAheadTest, SameChunksAsFrameReader) {
  std::vector<uint64_t> chunk_ends;
  const std::string bytes = testing::SampleTraceBytes(60000, 3000, 5, nullptr, &chunk_ends);
  ASSERT_GT(chunk_ends.size(), 10u);  // more chunks than are read ahead
  const std::vector<std::string> plain = Plain(bytes);
  EXPECT_GT(plain.size(), 10u);
  EXPECT_EQ(plain.back().rfind(std::to_string(static_cast<int>(FrameReader::Status::kEnd)), 0), 0u);
  ExpectSame(bytes, "whole");
}

TEST(FrameReadAheadTest, CutAndDamagedTracesEndTheSameWay) {
  std::vector<uint64_t> chunk_ends;
  const std::string bytes = testing::SampleTraceBytes(50000, 4000, 11, nullptr, &chunk_ends);
  ASSERT_GT(chunk_ends.size(), 3u);
  for (const uint64_t cut : {chunk_ends[1] + 17, chunk_ends[2], bytes.size() - 1}) {
    ExpectSame(bytes.substr(0, cut), "cut at " + std::to_string(cut));
  }
  std::string flipped = bytes;
  flipped[chunk_ends[2] + 40] ^= 0x5a;
  const std::vector<std::string> plain = Plain(flipped);
  ASSERT_FALSE(plain.empty());
  EXPECT_NE(plain.back().find("error="), std::string::npos) << plain.back();
  ExpectSame(flipped, "flipped");
}

TEST(FrameReadAheadTest, DestroyedMidReadStopsItsThread) {
  const std::string bytes = testing::SampleTraceBytes(60000, 1000, 9, nullptr);
  for (int taken = 0; taken < 4; ++taken) {
    FrameReader frames(std::make_unique<MemorySource>(bytes.data(), bytes.size()));
    ASSERT_EQ(frames.ReadHeader(), FrameReader::Status::kChunk);
    FrameReadAhead ahead(&frames, true);
    std::vector<uint8_t> chunk;
    for (int i = 0; i < taken; ++i) ASSERT_EQ(ahead.Next(&chunk), FrameReader::Status::kChunk);
  }  // each destructor joins a thread that waits for room, or reads
}

}  // namespace
}  // namespace heaprec::format
