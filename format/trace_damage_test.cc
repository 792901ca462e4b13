// Damaged traces: cut at every byte, bytes flipped, garbage, empty files,
// other formats, newer versions, and chunks that are well-formed FlatBuffers
// but inconsistent. The reader must never crash or hang, must deliver every
// whole chunk before a cut, and must name the file and byte offset of damage.
#include <flatbuffers/flatbuffers.h>
#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
#include <string>

#include "format/format_version.h"
#include "format/test_traces.h"
#include "format/trace_generated.h"
#include "format/trace_reader.h"
#include "format/trace_writer.h"
#include "format/varint.h"
#include "format/zigzag.h"

namespace heaprec::format {
namespace {

using testing::RecordingVisitor;
using testing::Records;
using testing::SampleTraceBytes;

ReadResult Read(const std::string& bytes, RecordingVisitor* v) {
  return ReadTraceMemory("t.zst", bytes.data(), bytes.size(), *v);
}

// Events delivered by whole chunks ending at or before `cut`.
size_t EventsBefore(const std::vector<uint64_t>& ends, const std::vector<size_t>& events_per_chunk,
                    uint64_t cut) {
  size_t n = 0;
  for (size_t i = 0; i < ends.size() && ends[i] <= cut; ++i) n += events_per_chunk[i];
  return n;
}

TEST(TraceDamageTest, CutAtEveryByteReadsEveryWholeChunkBeforeTheCut) {
  Records want;
  std::vector<uint64_t> ends;
  const std::string bytes = SampleTraceBytes(120, 10, 7, &want, &ends);
  ASSERT_EQ(ends.size(), 13u);
  // Chunks 0..11 hold 10 events each; the last holds symbols and the end.
  std::vector<size_t> per_chunk(12, 10);
  per_chunk.push_back(0);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    RecordingVisitor v;
    const ReadResult r = Read(bytes.substr(0, cut), &v);
    if (cut == 0) {
      ASSERT_EQ(r.status, ReadResult::kError);
      EXPECT_EQ(r.message, "t.zst: empty file, not a heaprec trace");
      continue;
    }
    ASSERT_EQ(r.status, ReadResult::kTruncated) << "cut " << cut << ": " << r.message;
    EXPECT_NE(r.message.find("truncated"), std::string::npos);
    EXPECT_NE(r.message.find("t.zst"), std::string::npos);
    const size_t n = EventsBefore(ends, per_chunk, cut);
    ASSERT_EQ(v.r.events.size(), n) << "cut " << cut;
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(v.r.events[i], want.events[i]);
    // The end record arrives with the last block; only zstd's checksum
    // (4 bytes) follows it.
    if (cut + 4 < bytes.size()) {
      EXPECT_TRUE(v.r.ends.empty());
    }
    // Metadata of whole chunks is there too.
    if (cut >= ends[0]) {
      EXPECT_EQ(v.r.processes.size(), 1u);
    }
  }
}

TEST(TraceDamageTest, CutAtEachChunkBoundary) {
  Records want;
  std::vector<uint64_t> ends;
  const std::string bytes = SampleTraceBytes(100, 25, 8, &want, &ends);
  for (size_t i = 0; i + 1 < ends.size(); ++i) {
    RecordingVisitor v;
    const ReadResult r = Read(bytes.substr(0, ends[i]), &v);
    ASSERT_EQ(r.status, ReadResult::kTruncated);
    EXPECT_EQ(r.chunks, i + 1);
    EXPECT_EQ(v.r.events.size(), 25 * (i + 1));
    EXPECT_EQ(r.error_offset, ends[i]);
  }
}

TEST(TraceDamageTest, FlippedBytesAreCaughtNeverCrash) {
  Records want;
  std::vector<uint64_t> ends;
  const std::string bytes = SampleTraceBytes(60, 20, 9, &want, &ends);
  int errors = 0;
  for (size_t pos = 0; pos < bytes.size(); ++pos) {
    for (const uint8_t mask : {0x01, 0x80, 0xff}) {
      std::string bad = bytes;
      bad[pos] = static_cast<char>(bad[pos] ^ mask);
      RecordingVisitor v;
      const ReadResult r = Read(bad, &v);
      if (r.status == ReadResult::kComplete) {
        // Only possible where the flip does not change meaning; then the
        // records must be exactly the original ones.
        EXPECT_EQ(v.r.events, want.events) << "pos " << pos;
        continue;
      }
      if (r.status == ReadResult::kError) {
        ++errors;
        EXPECT_EQ(r.message.rfind("t.zst: ", 0), 0u) << r.message;
        EXPECT_NE(r.message.find("byte offset"), std::string::npos) << r.message;
        // Found in the chunk holding the flip, or in the next one: zstd
        // blocks reuse the previous block's entropy tables, so a flip there
        // that the chunk's own bytes do not use shows in the next chunk. A
        // flip of the major version (3 -> 2) reads the first chunk by the
        // older rules, which refuse it.
        const uint64_t holding = *std::lower_bound(ends.begin(), ends.end(), pos + 1);
        EXPECT_LE(r.error_offset, holding) << r.message;
      }
      // Whatever happened, what was delivered is a prefix of the original.
      ASSERT_LE(v.r.events.size(), want.events.size());
      for (size_t i = 0; i < v.r.events.size(); ++i) {
        ASSERT_EQ(v.r.events[i], want.events[i]) << "pos " << pos;
      }
    }
  }
  EXPECT_GT(errors, static_cast<int>(bytes.size()));
}

TEST(TraceDamageTest, FlipInTheMagicSaysNotATrace) {
  std::string bytes = SampleTraceBytes(10, 0, 1, nullptr);
  bytes[9] = 'X';
  RecordingVisitor v;
  const ReadResult r = Read(bytes, &v);
  ASSERT_EQ(r.status, ReadResult::kError);
  EXPECT_EQ(r.message, "t.zst: not a heaprec trace (bad magic at byte offset 0)");
}

TEST(TraceDamageTest, GarbageAndOtherFormats) {
  RecordingVisitor v;
  ReadResult r = Read(std::string(1000, 'x'), &v);
  EXPECT_EQ(r.status, ReadResult::kError);
  EXPECT_NE(r.message.find("not a heaprec trace"), std::string::npos);

  // A plain zstd stream, as heaptrack writes.
  std::string plain(ZSTD_compressBound(5), '\0');
  plain.resize(ZSTD_compress(plain.data(), plain.size(), "hello", 5, 1));
  r = Read(plain, &v);
  EXPECT_EQ(r.status, ReadResult::kError);
  EXPECT_NE(r.message.find("plain zstd stream"), std::string::npos) << r.message;

  // A gzip file.
  r = Read(std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00", 8), &v);
  EXPECT_EQ(r.status, ReadResult::kError);
  EXPECT_TRUE(v.r.events.empty());
}

TEST(TraceDamageTest, GarbageAfterAWholeChunk) {
  std::vector<uint64_t> ends;
  const std::string bytes = SampleTraceBytes(50, 25, 3, nullptr, &ends);
  const std::string bad = bytes.substr(0, ends[0]) + std::string(64, '\x42');
  RecordingVisitor v;
  const ReadResult r = Read(bad, &v);
  ASSERT_EQ(r.status, ReadResult::kError);
  EXPECT_EQ(
      r.message.rfind("t.zst: corrupt chunk at byte offset " + std::to_string(ends[0]) + ": ", 0),
      0u)
      << r.message;
  EXPECT_EQ(v.r.events.size(), 25u);  // nothing before the damage is lost
}

TEST(TraceDamageTest, DataAfterTheEndChunk) {
  const std::string bytes = SampleTraceBytes(20, 0, 3, nullptr);
  std::vector<uint64_t> ends;
  const std::string again = SampleTraceBytes(20, 0, 3, nullptr, &ends);
  // Append the second trace's first chunk after the end.
  const std::string bad = bytes + again.substr(kHeaderSize, ends[0] - kHeaderSize);
  RecordingVisitor v;
  const ReadResult r = Read(bad, &v);
  ASSERT_EQ(r.status, ReadResult::kError);
  EXPECT_NE(r.message.find("data after the end chunk"), std::string::npos) << r.message;
  EXPECT_EQ(r.error_offset, bytes.size());
}

TEST(TraceDamageTest, VersionMismatch) {
  std::string bytes = SampleTraceBytes(10, 0, 1, nullptr);
  std::string newer_minor = bytes;
  newer_minor[18] = 7;  // minor 7 of this major: fields were only added
  RecordingVisitor v;
  ReadResult r = Read(newer_minor, &v);
  EXPECT_EQ(r.status, ReadResult::kComplete) << r.message;
  EXPECT_EQ(r.version.minor, 7);

  std::string newer_major = bytes;
  newer_major[16] = kFormatMajor + 1;
  r = Read(newer_major, &v);
  ASSERT_EQ(r.status, ReadResult::kError);
  EXPECT_EQ(r.message, "t.zst: format version " + std::to_string(kFormatMajor + 1) + "." +
                           std::to_string(kFormatMinor) +
                           " at byte offset 16 is newer than this build reads (" +
                           std::to_string(kFormatMajor) + ".x)");
  EXPECT_EQ(r.error_offset, 16u);

  std::string zero_major = bytes;
  zero_major[16] = 0;
  r = Read(zero_major, &v);
  EXPECT_EQ(r.status, ReadResult::kError);
}

TEST(TraceDamageTest, SkippableFramesBetweenFramesAreSkipped) {
  std::vector<uint64_t> ends;
  Records want;
  const std::string bytes = SampleTraceBytes(40, 20, 3, &want, &ends);
  const std::string skip(
      "\x50\x2a\x4d\x18\x03\x00\x00\x00"
      "abc",
      11);
  // Format 2 writes one zstd frame: skippable frames may come before it (and
  // between frames, when a writer starts new ones).
  const std::string with_skip = bytes.substr(0, kHeaderSize) + skip + bytes.substr(kHeaderSize);
  RecordingVisitor v;
  const ReadResult r = Read(with_skip, &v);
  EXPECT_EQ(r.status, ReadResult::kComplete) << r.message;
  EXPECT_EQ(v.r.events, want.events);
}

// Inconsistent chunks: valid FlatBuffers, valid zstd, wrong content.
namespace fb = ::heaprec::format::fb;

struct Columns {
  std::vector<uint8_t> api = {1};
  std::vector<uint64_t> seq_delta = {0};  // no seq skipped: seq 1
  std::vector<uint64_t> time_delta = {0};
  std::vector<uint32_t> thread = {1};
  std::vector<uint64_t> address_delta = {0x10};
  std::vector<uint64_t> size = {8};
  std::vector<uint32_t> stack = {0};
  std::vector<uint64_t> alignment;
  std::vector<uint64_t> old_address;
  std::vector<uint32_t> stack_parent;
  std::vector<uint64_t> stack_address;
  uint32_t index = 0;
  uint32_t base_stack_id = 0;
  uint64_t base_seq = 0;
  bool with_markers = false;
  std::vector<uint64_t> block_ref;
  std::vector<uint64_t> raw_address;
  uint64_t base_block = 0;
  std::vector<uint8_t> ref_form;
  std::vector<uint64_t> ref_thread;
  std::vector<uint64_t> seq_run;  // (group, count) pairs
  // Format 4 (major >= 4): group_v, seq_skip_v, time_change_v and
  // free_stack_v are made from thread, seq_delta, time_delta and stack
  // unless given here (as values, stored as varints).
  int major = kFormatMajor;
  std::optional<std::vector<uint64_t>> group, seq_skip, time_change, free_stack;
};

// What a format 4 writer stores of c's per-event thread, seq, time and stack
// columns: groups, sparse (index gap, value) pairs, stacks of non-frees and,
// if any free has one, of frees.
void Format4Columns(const Columns& c, std::vector<uint64_t>* group, std::vector<uint64_t>* skip,
                    std::vector<uint64_t>* change, std::vector<uint64_t>* stack,
                    std::vector<uint64_t>* free_stack) {
  for (size_t i = 0; i < c.thread.size(); ++i) {
    if (i == 0 || c.thread[i] != c.thread[i - 1]) {
      group->push_back(c.thread[i]);
      group->push_back(0);
    }
    ++group->back();
  }
  auto sparse = [](const std::vector<uint64_t>& values, std::vector<uint64_t>* out) {
    uint64_t from = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i] == 0) continue;
      out->push_back(i - from);
      out->push_back(values[i]);
      from = i + 1;
    }
  };
  sparse(c.seq_delta, skip);
  sparse(c.time_delta, change);
  bool free_stacks = false;
  for (size_t i = 0; i < c.stack.size(); ++i) {
    const bool free =
        i < c.api.size() && KindOf(static_cast<Api>(c.api[i] & kApiMask)) == EventKind::kFree;
    (free ? free_stack : stack)->push_back(c.stack[i]);
    free_stacks |= free && c.stack[i] != 0;
  }
  if (!free_stacks) free_stack->clear();
}

// One zstd frame holding one format 2 chunk record: size, CRC-32, bytes.
std::string Frame(const std::string& chunk) {
  const uint32_t size = static_cast<uint32_t>(chunk.size());
  const uint32_t crc = static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(chunk.data()), static_cast<uInt>(chunk.size())));
  std::string record(8, '\0');
  for (int i = 0; i < 4; ++i) {
    record[i] = static_cast<char>(size >> (8 * i));
    record[4 + i] = static_cast<char>(crc >> (8 * i));
  }
  record += chunk;
  std::string frame(ZSTD_compressBound(record.size()), '\0');
  frame.resize(ZSTD_compress(frame.data(), frame.size(), record.data(), record.size(), 1));
  return frame;
}

std::vector<uint8_t> VarintBytes(const std::vector<uint64_t>& values) {
  std::vector<uint8_t> out;
  for (const uint64_t v : values) PutVarint(&out, v);
  return out;
}

// A format 3 or 4 chunk (c.major) from logical column values (stored as varints; stack
// parents as id - parent, stack addresses as zigzag deltas).
std::string ChunkBytes(const Columns& c) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<uint64_t> back, address_delta;
  uint64_t previous = 0;
  for (size_t i = 0; i < c.stack_parent.size(); ++i)
    back.push_back(c.base_stack_id + 1 + i - c.stack_parent[i]);
  for (const uint64_t a : c.stack_address) {
    address_delta.push_back(ZigzagDelta(previous, a));
    previous = a;
  }
  const auto api = b.CreateVector(c.api);
  const bool format4 = c.major >= 4;
  std::vector<uint64_t> group, skip, change, stacks4, free_stack;
  if (format4) {
    Format4Columns(c, &group, &skip, &change, &stacks4, &free_stack);
    if (c.group) group = *c.group;
    if (c.seq_skip) skip = *c.seq_skip;
    if (c.time_change) change = *c.time_change;
    if (c.free_stack) free_stack = *c.free_stack;
  }
  const auto seq = b.CreateVector(VarintBytes({c.seq_delta.begin(), c.seq_delta.end()}));
  const auto time = b.CreateVector(VarintBytes(c.time_delta));
  const auto thread = b.CreateVector(VarintBytes({c.thread.begin(), c.thread.end()}));
  const auto address = b.CreateVector(VarintBytes(c.address_delta));
  const auto size = b.CreateVector(VarintBytes(c.size));
  const auto stack = b.CreateVector(format4 ? VarintBytes(stacks4)
                                            : VarintBytes({c.stack.begin(), c.stack.end()}));
  const auto group_v = b.CreateVector(VarintBytes(group));
  const auto skip_v = b.CreateVector(VarintBytes(skip));
  const auto change_v = b.CreateVector(VarintBytes(change));
  const auto free_stack_v = b.CreateVector(VarintBytes(free_stack));
  const auto alignment = b.CreateVector(c.alignment);
  const auto old_address = b.CreateVector(c.old_address);
  const auto parent = b.CreateVector(VarintBytes(back));
  const auto stack_address = b.CreateVector(VarintBytes(address_delta));
  std::vector<flatbuffers::Offset<fb::Marker>> markers;
  if (c.with_markers) {
    markers.push_back(fb::CreateMarker(b, 5, 0, 1, b.CreateString("b")));
    markers.push_back(fb::CreateMarker(b, 3, 0, 1, b.CreateString("a")));
  }
  const auto markers_v = b.CreateVector(markers);
  const auto block_ref = b.CreateVector(VarintBytes(c.block_ref));
  const auto raw_address = b.CreateVector(c.raw_address);
  const auto ref_form = b.CreateVector(c.ref_form);
  const auto ref_thread = b.CreateVector(VarintBytes(c.ref_thread));
  const auto seq_run = b.CreateVector(VarintBytes(c.seq_run));
  fb::ChunkBuilder chunk(b);
  chunk.add_index(c.index);
  chunk.add_base_seq(c.base_seq);
  chunk.add_api(api);
  if (format4) {
    chunk.add_group_v(group_v);
    chunk.add_seq_skip_v(skip_v);
    chunk.add_time_change_v(change_v);
    chunk.add_free_stack_v(free_stack_v);
  } else {
    chunk.add_seq_delta_v(seq);
    chunk.add_time_delta_v(time);
    chunk.add_thread_v(thread);
  }
  chunk.add_address_delta_v(address);
  chunk.add_size_v(size);
  chunk.add_stack_v(stack);
  chunk.add_alignment(alignment);
  chunk.add_old_address(old_address);
  chunk.add_base_stack_id(c.base_stack_id);
  chunk.add_stack_parent_v(parent);
  chunk.add_stack_address_v(stack_address);
  chunk.add_markers(markers_v);
  chunk.add_block_ref(block_ref);
  chunk.add_raw_address(raw_address);
  chunk.add_base_block(c.base_block);
  chunk.add_ref_form(ref_form);
  chunk.add_ref_thread_v(ref_thread);
  chunk.add_seq_run_v(seq_run);
  fb::FinishChunkBuffer(b, chunk.Finish());
  return Frame(std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize()));
}

// This build's header, or one of the given version (bytes 16-19).
std::string Header(int major = kFormatMajor, int minor = kFormatMinor) {
  uint8_t h[kHeaderSize];
  EncodeHeader(h);
  h[16] = static_cast<uint8_t>(major);
  h[17] = 0;
  h[18] = static_cast<uint8_t>(minor);
  h[19] = 0;
  return std::string(reinterpret_cast<char*>(h), kHeaderSize);
}

// Three malloc events in column order: two of thread 1, one of thread 2 (no
// seq runs yet), as a chunk of format `major`.
Columns TwoThreads(int major = kFormatMajor) {
  Columns t;
  t.major = major;
  t.api = {1, 1, 1};
  t.seq_delta = {0, 0, 0};
  t.time_delta = {0, 0, 0};
  t.thread = {1, 1, 2};
  t.address_delta = {0x10, 0x10, 0x10};
  t.size = {8, 8, 8};
  t.stack = {0, 0, 0};
  return t;
}

std::string ErrorOf(const std::string& bytes) {
  RecordingVisitor v;
  const ReadResult r = Read(bytes, &v);
  return r.status == ReadResult::kError ? r.message : "no error";
}

TEST(TraceDamageTest, AConsistentCraftedChunkReads) {
  RecordingVisitor v;
  const ReadResult r = Read(Header() + ChunkBytes({}), &v);
  EXPECT_EQ(r.status, ReadResult::kTruncated) << r.message;  // no end record
  ASSERT_EQ(v.r.events.size(), 1u);
  EXPECT_EQ(v.r.events[0].address, 0x8u);  // zigzag(0x10) = +8
}

TEST(TraceDamageTest, InconsistentChunksAreRejectedWithTheirOffset) {
  const std::string at = "t.zst: corrupt chunk at byte offset 24: ";
  Columns c;
  c.size = {};
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), at + "event columns have different lengths");
  c = {};
  c.api = {0};
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), at + "event 0 has invalid api 0");
  c = {};
  c.api = {128};  // bit 7 is a flag; api 0 is invalid
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), at + "event 0 has invalid api 128");
  c = {};
  c.base_seq = 5;
  c.seq_delta = {UINT64_MAX};  // past 2^64
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), at + "sequence numbers overflow");
  // Two threads' events, and runs that do not take each group whole.
  c = TwoThreads();
  c.seq_run = {0, 1, 1, 1, 0, 1};  // thread 1, 2, 1: reads
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), "no error");
  for (const std::vector<uint64_t>& runs : {std::vector<uint64_t>{0, 3},
                                            {0, 2, 1, 2},
                                            {0, 1, 1, 1},
                                            {0, 2, 2, 1},
                                            {0, 2, 1},
                                            {0, 0, 0, 2, 1, 1},
                                            // past group 0's end, once group 1 is taken
                                            // (a fuzzer's find: it wrote past the order)
                                            {1, 1, 0, 3}}) {
    c = TwoThreads();
    c.seq_run = runs;
    EXPECT_NE(ErrorOf(Header() + ChunkBytes(c)).find("seq runs do not"), std::string::npos);
  }
  c = {};
  c.stack = {3};
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), at + "event 0 names unknown stack 3");
  c = {};
  c.api = {static_cast<uint8_t>(Api::kPosixMemalign)};
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), at + "sparse columns do not match the events");
  c = {};
  c.api = {static_cast<uint8_t>(Api::kRealloc)};
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), at + "sparse columns do not match the events");
  c = {};
  c.stack_parent = {0, 2};
  c.stack_address = {1, 2};
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), at + "stack node 2 has a later parent");
  c = {};
  c.stack_parent = {0};
  c.stack_address = {1, 2};
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), at + "stack columns have different lengths");
  c = {};
  c.base_stack_id = 5;
  c.stack_parent = {0};
  c.stack_address = {1};
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)),
            at + "stack ids do not continue (base 5, expected 0)");
  c = {};
  // A huge base and stack id: rejected, without sizing any table by them.
  c.base_stack_id = 0xfffffff0u;
  c.stack = {0xfffffff0u};
  c.stack_parent = {0};
  c.stack_address = {1};
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)),
            at + "stack ids do not continue (base 4294967280, expected 0)");
  c = {};
  c.index = 1;
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), at + "chunk index 1, expected 0");
  c = {};
  c.api = {static_cast<uint8_t>(Api::kFree)};
  c.block_ref = {2};  // zigzag(+1): the most recent block, none made yet
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), at + "event 0 names block ref 1 of only 0 made");
  c = {};
  c.api = {static_cast<uint8_t>(Api::kFree)};  // no block_ref entry
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), at + "sparse columns do not match the events");
  c = {};
  c.api = {static_cast<uint8_t>(Api::kFree)};
  c.block_ref = {0};  // an unknown block, but no raw_address entry
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), at + "sparse columns do not match the events");
  c = {};
  c.api = {static_cast<uint8_t>(static_cast<uint8_t>(Api::kFree) | 0x80)};
  c.block_ref = {0};
  c.raw_address = {0x10};
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), at + "event 0 has invalid api 224");
  // Refs by thread (format 3): thread 1 made one block.
  const auto made_one = [] {
    Columns t;
    t.api = {1, static_cast<uint8_t>(Api::kFree)};
    t.seq_delta = {0, 0};
    t.time_delta = {0, 0};
    t.thread = {1, 1};
    t.address_delta = {0x10, 0};
    t.size = {8, 0};
    t.stack = {0, 0};
    return t;
  };
  c = made_one();
  c.ref_form = {1};
  c.block_ref = {2};  // k = 1: its last block
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), "no error");
  c = made_one();
  c.ref_form = {1};
  c.block_ref = {4};  // k = 2: it made only one
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)),
            at + "event 1 names a block its thread did not make lately");
  c = made_one();
  c.ref_form = {1};
  c.block_ref = {0};  // k = 0
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), at + "event 1 names its thread's 0th block");
  c = made_one();
  c.ref_form = {2};
  c.block_ref = {2};   // i = 1...
  c.ref_thread = {2};  // ...of thread 2, which made none
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)),
            at + "event 1 names a block its thread did not make lately");
  c = made_one();
  c.ref_form = {2};
  c.block_ref = {2};
  c.ref_thread = {uint64_t{1} << 34};  // thread 1 + 2^33
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), at + "event 1 names a block of no thread");
  c.ref_thread = {};  // none for the form-2 ref
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), at + "sparse columns do not match the events");
  c = made_one();
  c.ref_form = {3};
  c.block_ref = {2};
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), at + "event 1 has block ref form 3");
  c = made_one();
  c.ref_form = {1, 1};  // one per ref
  c.block_ref = {2};
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), at + "sparse columns do not match the events");
  c = {};
  c.base_block = 3;
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), at + "blocks do not continue (base 3, expected 0)");
  c = {};
  c.with_markers = true;
  EXPECT_EQ(ErrorOf(Header() + ChunkBytes(c)), at + "marker out of order (seq 3)");

  // A second chunk that goes back in sequence.
  Columns first;
  first.base_seq = 100;  // its event: seq 101
  Columns second;
  second.index = 1;
  second.base_seq = 50;
  const std::string one = Header() + ChunkBytes(first);
  EXPECT_EQ(ErrorOf(one + ChunkBytes(second)), "t.zst: corrupt chunk at byte offset " +
                                                   std::to_string(one.size()) +
                                                   ": events go back in sequence (base 50 < 101)");
}

TEST(TraceDamageTest, NotAFlatBufferInsideAValidFrame) {
  EXPECT_EQ(ErrorOf(Header() + Frame("this is not a flatbuffer at all")),
            "t.zst: corrupt chunk at byte offset 24: chunk fails FlatBuffers verification");
}

TEST(TraceDamageTest, ChunkLargerThanTheLimitIsRefused) {
  const std::string big(1 << 20, 'a');
  std::string frame(ZSTD_compressBound(big.size()), '\0');
  frame.resize(ZSTD_compress(frame.data(), frame.size(), big.data(), big.size(), 1));
  const std::string bytes = Header() + frame;
  RecordingVisitor v;
  ReaderOptions options;
  options.max_chunk_bytes = 1000;
  const ReadResult r = ReadTraceMemory("t.zst", bytes.data(), bytes.size(), v, options);
  ASSERT_EQ(r.status, ReadResult::kError);
  EXPECT_NE(r.message.find("exceeds the limit of 1000"), std::string::npos) << r.message;
}

}  // namespace
}  // namespace heaprec::format

namespace heaprec::format {
namespace {

// Chunks with no aligned or realloc events have empty 8-byte columns, which
// FlatBuffers may leave unaligned; they must still read.
TEST(TraceDamageTest, EmptySparseColumnsRead) {
  for (int n = 1; n <= 16; ++n) {
    StringSink sink;
    TraceWriter w(&sink, testing::SampleProcess());
    for (int i = 1; i <= n; ++i) {
      w.AddEvent({.seq = static_cast<uint64_t>(i),
                  .api = Api::kMalloc,
                  .address = 0x1000u * i,
                  .size = static_cast<uint64_t>(i)});
    }
    ASSERT_TRUE(w.Finish({}));
    testing::RecordingVisitor v;
    const ReadResult r = ReadTraceMemory("t.zst", sink.bytes().data(), sink.bytes().size(), v);
    ASSERT_EQ(r.status, ReadResult::kComplete) << n << ": " << r.message;
    EXPECT_EQ(v.r.events.size(), static_cast<size_t>(n));
  }
}

}  // namespace
}  // namespace heaprec::format

namespace heaprec::format {
namespace {

// Format 4's columns: threads by group, seq skips and time changes listed
// where they occur, a free's stack in free_stack_v.
TEST(TraceDamageTest, Format4ColumnsReadAsTheirEvents) {
  Columns c;
  const auto free = static_cast<uint8_t>(Api::kFree);
  c.api = {1, free, 1};  // in column order: thread 1's two events, thread 2's
  c.thread = {1, 1, 2};
  c.seq_delta = {0, 2, 0};   // seqs 1, 4 (2 skipped) and 5
  c.time_delta = {0, 6, 0};  // zigzag(+3): 0, 3, 3 ns
  c.address_delta = {0x10, 0, 0x10};
  c.size = {16, 15, 32};  // zigzag deltas per stack: 8, 0, 16
  c.stack = {1, 1, 0};    // the free has stack 1
  c.stack_parent = {0};
  c.stack_address = {0x1234};
  c.block_ref = {2};  // d = 1: the block just made
  c.seq_run = {0, 2, 1, 1};
  RecordingVisitor v;
  const ReadResult r = Read(Header() + ChunkBytes(c), &v);
  ASSERT_EQ(r.status, ReadResult::kTruncated) << r.message;  // no end record
  ASSERT_EQ(v.r.events.size(), 3u);
  const std::vector<Event>& e = v.r.events;
  EXPECT_EQ(e[0].thread, 1u);
  EXPECT_EQ(e[0].seq, 1u);
  EXPECT_EQ(e[0].time_ns, 0u);
  EXPECT_EQ(e[0].stack, 1u);
  EXPECT_EQ(e[0].size, 8u);
  EXPECT_EQ(e[1].thread, 1u);
  EXPECT_EQ(e[1].seq, 4u);
  EXPECT_EQ(e[1].time_ns, 3u);
  EXPECT_EQ(e[1].stack, 1u);
  EXPECT_EQ(e[1].block, e[0].block);
  EXPECT_EQ(e[2].thread, 2u);
  EXPECT_EQ(e[2].seq, 5u);
  EXPECT_EQ(e[2].time_ns, 3u);
  EXPECT_EQ(e[2].stack, 0u);
  EXPECT_EQ(e[2].size, 16u);
  // Without free_stack_v every free's stack is 0.
  c.stack = {1, 0, 0};
  c.size = {16, 0, 32};  // the free's size now follows stack 0's
  RecordingVisitor w;
  ASSERT_EQ(Read(Header() + ChunkBytes(c), &w).status, ReadResult::kTruncated);
  ASSERT_EQ(w.r.events.size(), 3u);
  EXPECT_EQ(w.r.events[1].stack, 0u);
  EXPECT_EQ(w.r.events[1].size, 0u);
}

TEST(TraceDamageTest, Format4ColumnsThatDisagreeWithTheEventsAreRejected) {
  const std::string at = "t.zst: corrupt chunk at byte offset 24: ";
  const std::string lengths = at + "event columns have different lengths";
  const auto with = [](const std::function<void(Columns*)>& change) {
    Columns c;
    change(&c);
    return ErrorOf(Header() + ChunkBytes(c));
  };
  EXPECT_EQ(with([](Columns*) {}), "no error");
  EXPECT_EQ(with([](Columns* c) { c->group = std::vector<uint64_t>{1, 0, 1, 1}; }), lengths);
  EXPECT_EQ(with([](Columns* c) { c->group = std::vector<uint64_t>{1, 2}; }), lengths);
  EXPECT_EQ(with([](Columns* c) { c->group = std::vector<uint64_t>{1}; }), lengths);
  EXPECT_EQ(with([](Columns* c) { c->group = std::vector<uint64_t>{}; }), lengths);
  EXPECT_EQ(with([](Columns* c) { c->seq_skip = std::vector<uint64_t>{1, 5}; }), lengths);
  EXPECT_EQ(with([](Columns* c) { c->seq_skip = std::vector<uint64_t>{0}; }), lengths);
  EXPECT_EQ(with([](Columns* c) { c->time_change = std::vector<uint64_t>{1, 2}; }), lengths);
  EXPECT_EQ(with([](Columns* c) {
              c->time_change = std::vector<uint64_t>{UINT64_MAX, 2};
            }),
            lengths);
  EXPECT_EQ(with([](Columns* c) { c->free_stack = std::vector<uint64_t>{3}; }), lengths);
  // Two events of one thread in two groups.
  EXPECT_EQ(with([](Columns* c) {
              c->api = {1, 1};
              c->seq_delta = {0, 0};
              c->time_delta = {0, 0};
              c->thread = {1, 1};
              c->address_delta = {0x10, 0x10};
              c->size = {8, 8};
              c->stack = {0, 0};
              c->group = std::vector<uint64_t>{1, 1, 1, 1};
            }),
            lengths);
  // Two frees, one stack for them.
  EXPECT_EQ(with([](Columns* c) {
              const auto free = static_cast<uint8_t>(Api::kFree);
              c->api = {1, free, free};
              c->seq_delta = {0, 0, 0};
              c->time_delta = {0, 0, 0};
              c->thread = {1, 1, 1};
              c->address_delta = {0x10, 0, 0};
              c->size = {8, 0, 0};
              c->stack = {0, 0, 0};
              c->block_ref = {2, 0};  // the same block twice: a double free
              c->free_stack = std::vector<uint64_t>{0};
            }),
            lengths);
}

// Chunks of format 3 (per-event thread, seq and time columns) still read
// under a 3.x header, and the same damage is found in them.
TEST(TraceDamageTest, Format3CraftedChunksStillRead) {
  const std::string at = "t.zst: corrupt chunk at byte offset 24: ";
  Columns c;
  c.major = 3;
  RecordingVisitor v;
  const ReadResult r = Read(Header(3, 5) + ChunkBytes(c), &v);
  EXPECT_EQ(r.status, ReadResult::kTruncated) << r.message;
  ASSERT_EQ(v.r.events.size(), 1u);
  EXPECT_EQ(v.r.events[0].address, 0x8u);
  c.size = {};
  EXPECT_EQ(ErrorOf(Header(3, 5) + ChunkBytes(c)), at + "event columns have different lengths");
  c = TwoThreads(3);
  c.seq_run = {0, 1, 1, 1, 0, 1};
  EXPECT_EQ(ErrorOf(Header(3, 5) + ChunkBytes(c)), "no error");
  c.seq_run = {0, 3};
  EXPECT_NE(ErrorOf(Header(3, 5) + ChunkBytes(c)).find("seq runs do not"), std::string::npos);
}

TEST(TraceDamageTest, TruncationNamesTheEndOfTheLastWholeChunk) {
  std::vector<uint64_t> ends;
  const std::string bytes = testing::SampleTraceBytes(100, 25, 8, nullptr, &ends);
  for (size_t i = 0; i + 1 < ends.size(); ++i) {
    testing::RecordingVisitor v;
    const std::string cut = bytes.substr(0, ends[i] + 7);  // 7 bytes into the next chunk
    const ReadResult r = ReadTraceMemory("t.zst", cut.data(), cut.size(), v);
    ASSERT_EQ(r.status, ReadResult::kTruncated);
    EXPECT_EQ(r.error_offset, ends[i]);
    EXPECT_EQ(r.message, "t.zst: trace is truncated after byte offset " + std::to_string(ends[i]) +
                             " (" + std::to_string(i + 1) +
                             " whole chunks read; the recording may have been cut short)");
  }
}

}  // namespace
}  // namespace heaprec::format
