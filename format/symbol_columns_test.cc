// Symbol columns (3.5): what the writer encodes, the reader decodes exactly;
// every way the columns can disagree is refused with a reason.
#include "format/symbol_columns.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace heaprec::format {
namespace {

std::vector<Symbol> Sample() {
  return {
      {0x401000, 1, {{"inlined<int>()", "/src/a.h", 12, 3}, {"caller(int)", "/src/a.cc", 40, 0}}},
      {0x400ff0, 1, {{"caller(int)", "/src/a.cc", 41, 0}}},  // address going back
      {0x7f0000001000, 2, {}},                               // no frames
      {0x7f0000002000, 2, {{"", "", 0, 0}}},                 // unknown function
      {UINT64_MAX, UINT32_MAX, {{"f\xc3\xa9", "/src/b.cc", UINT32_MAX, UINT32_MAX}}},
  };
}

// The columns of symbols, as a reader finds them.
struct Encoded {
  flatbuffers::FlatBufferBuilder b;
  const fb::SymbolColumns* Build(const std::vector<Symbol>& symbols) {
    b.Finish(EncodeSymbolColumns(b, symbols));
    return flatbuffers::GetRoot<fb::SymbolColumns>(b.GetBufferPointer());
  }
};

TEST(SymbolColumnsTest, RoundTrip) {
  Encoded e;
  const fb::SymbolColumns* f = e.Build(Sample());
  EXPECT_EQ(f->count(), 5u);
  EXPECT_EQ(f->frame_count(), 5u);
  // "caller(int)" and "/src/a.cc" are stored once; "" once for both fields.
  EXPECT_EQ(f->string_count(), 7u);
  std::vector<Symbol> got = {{1, 1, {}}};  // appended to
  std::string error;
  ASSERT_TRUE(DecodeSymbolColumns(*f, &got, &error)) << error;
  std::vector<Symbol> want = {{1, 1, {}}};
  for (const Symbol& s : Sample()) want.push_back(s);
  EXPECT_EQ(got, want);
}

TEST(SymbolColumnsTest, NoSymbols) {
  Encoded e;
  std::vector<Symbol> got;
  std::string error;
  ASSERT_TRUE(DecodeSymbolColumns(*e.Build({}), &got, &error)) << error;
  EXPECT_TRUE(got.empty());
}

// Columns written by hand: each a list of varints (all below 128 here).
struct Raw {
  uint32_t count = 1, frame_count = 1, string_count = 1;
  std::vector<uint8_t> strings = {1, 'f'};
  std::vector<uint8_t> address = {2}, module = {1}, frames = {1};
  std::vector<uint8_t> function = {0}, file = {0}, line = {7}, column = {0};
};

std::string ErrorOf(const Raw& r) {
  flatbuffers::FlatBufferBuilder b;
  const auto s = b.CreateVector(r.strings);
  const auto a = b.CreateVector(r.address);
  const auto m = b.CreateVector(r.module);
  const auto fr = b.CreateVector(r.frames);
  const auto fn = b.CreateVector(r.function);
  const auto fi = b.CreateVector(r.file);
  const auto l = b.CreateVector(r.line);
  const auto c = b.CreateVector(r.column);
  b.Finish(fb::CreateSymbolColumns(b, r.count, r.frame_count, r.string_count, s, a, m, fr, fn, fi,
                                   l, c));
  std::vector<Symbol> out;
  std::string error;
  if (DecodeSymbolColumns(*flatbuffers::GetRoot<fb::SymbolColumns>(b.GetBufferPointer()), &out,
                          &error)) {
    return "ok: " + std::to_string(out.size()) + " " + out.at(0).frames.at(0).function + ":" +
           std::to_string(out.at(0).frames.at(0).line) + " at " + std::to_string(out.at(0).address);
  }
  return error;
}

TEST(SymbolColumnsTest, HandWrittenColumnsRead) {
  EXPECT_EQ(ErrorOf(Raw{}), "ok: 1 f:7 at 1");  // zigzag(1) = 2
}

TEST(SymbolColumnsTest, DisagreeingColumnsAreRefused) {
  Raw r;
  r.count = 2;
  EXPECT_EQ(ErrorOf(r), "symbols: column address_v does not hold one varint a symbol");
  r = {};
  r.module = {1, 1};
  EXPECT_EQ(ErrorOf(r), "symbols: column module_v does not hold one varint a symbol");
  r = {};
  r.line = {};
  EXPECT_EQ(ErrorOf(r), "symbols: column line_v does not hold one varint a frame");
  r = {};
  r.frames = {2};
  EXPECT_EQ(ErrorOf(r), "symbols: frame counts add up to 2, not 1");
  r = {};
  r.frames = {0x7f};  // far more than frame_count
  EXPECT_EQ(ErrorOf(r), "symbols: frame counts add up to 2, not 1");
  r = {};
  r.file = {1};
  EXPECT_EQ(ErrorOf(r), "symbols: frame 0 names string 1 of 1");
  r = {};
  r.strings = {5, 'f'};
  EXPECT_EQ(ErrorOf(r), "symbols: name 0 of 1 is cut short");
  r = {};
  r.strings = {0x80};  // a length that never ends
  EXPECT_EQ(ErrorOf(r), "symbols: name 0 of 1 is cut short");
  r = {};
  r.strings = {1, 'f', 0};
  EXPECT_EQ(ErrorOf(r), "symbols: bytes after the last name");
  r = {};
  r.string_count = 2;
  EXPECT_EQ(ErrorOf(r), "symbols: name 1 of 2 is cut short");
  r = {};
  r.line = {0x80, 0x80, 0x80, 0x80, 0x10};  // 2^32
  EXPECT_EQ(ErrorOf(r), "symbols: frame 0 has a line or column over 32 bits");
  r = {};
  r.module = {0x80, 0x80, 0x80, 0x80, 0x10};
  EXPECT_EQ(ErrorOf(r), "symbols: symbol 0 has a module id over 32 bits");
}

}  // namespace
}  // namespace heaprec::format
