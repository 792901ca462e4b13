// JsonText writes what nlohmann::json::dump(2) writes, byte for byte, for
// every kind of value, with placeholders filled in place, to a string or a
// file; invalid UTF-8 becomes U+FFFD instead of an exception.
#include "analyzers/json_text.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>

namespace heaprec::analyzers {
namespace {

using nlohmann::json;

std::string Text(const json& v, const JsonText::Fills& fills = {}) {
  JsonText out;
  out.Value(v, 0, fills);
  return out.text();
}

TEST(JsonTextTest, WritesWhatDumpWrites) {
  const json v = {{"empty_object", json::object()},
                  {"empty_array", json::array()},
                  {"null", nullptr},
                  {"yes", true},
                  {"no", false},
                  {"int", -42},
                  {"uint", 18446744073709551615ull},
                  {"double", 0.1},
                  {"whole_double", 2.0},
                  {"tiny", 1e-300},
                  {"escapes", "quote\" backslash\\ \b\f\n\r\t \x01\x1f \x7f"},
                  {"utf8", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"},
                  {"nested", {{"a", {1, {2, json::array({json::object()})}}}, {"b", "x"}}},
                  {"array_of_objects", {{{"k", 1}}, {{"k", 2}, {"j", {}}}}}};
  EXPECT_EQ(Text(v), v.dump(2));
  EXPECT_EQ(Text(json::array()), "[]");
  EXPECT_EQ(Text(json("top")), "\"top\"");
}

// Random trees of every kind of value, strings of random bytes below 0x80.
json RandomValue(std::mt19937& rng, int depth) {
  const int kind = depth > 3 ? static_cast<int>(rng() % 5) : static_cast<int>(rng() % 7);
  switch (kind) {
    case 0:
      return nullptr;
    case 1:
      return rng() % 2 == 0;
    case 2:
      return static_cast<int64_t>(rng()) - (1ll << 31);
    case 3:
      return static_cast<double>(rng()) / 7.0;
    case 4: {
      std::string s(rng() % 12, ' ');
      for (char& c : s) c = static_cast<char>(rng() % 0x80);
      return s;
    }
    case 5: {
      json a = json::array();
      for (int i = static_cast<int>(rng() % 4); i > 0; --i)
        a.push_back(RandomValue(rng, depth + 1));
      return a;
    }
    default: {
      json o = json::object();
      for (int i = static_cast<int>(rng() % 4); i > 0; --i) {
        o["k" + std::to_string(rng() % 100)] = RandomValue(rng, depth + 1);
      }
      return o;
    }
  }
}

TEST(JsonTextTest, RandomValuesAreWrittenAsDumpWritesThem) {
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    const json v = RandomValue(rng, 0);
    ASSERT_EQ(Text(v), v.dump(2)) << "value " << i;
  }
}

// A placeholder's fill writes at the placeholder's place and indentation:
// the text is that of the value with the fill's value in its place.
TEST(JsonTextTest, PlaceholdersAreFilledWhereTheyStand) {
  const json list = {{{"bytes", 1}, {"stack", {{{"function", "f"}}}}}, {{"bytes", 2}}};
  const json whole = {{"sites", list}, {"summary", {{"n", 3}}}, {"more", {{"a", list}}}};
  const json with_later = {{"sites", JsonText::Later(0)},
                           {"summary", {{"n", 3}}},
                           {"more", {{"a", JsonText::Later(1)}}}};
  const JsonText::Fill fill = [&](JsonText& out, int indent) {
    out.Array(list.size(), indent, [&](size_t i, int in) { out.Value(list[i], in); });
  };
  EXPECT_EQ(Text(with_later, {fill, fill}), whole.dump(2));
}

TEST(JsonTextTest, KeysAndRawPiecesMakeAnObject) {
  JsonText out;
  out.Raw("{");
  out.Key(2, "a");
  out.Raw("1,");
  out.Key(2, "b\"");
  out.String("x");
  out.Raw("\n}");
  EXPECT_EQ(out.text(), json({{"a", 1}, {"b\"", "x"}}).dump(2));
}

TEST(JsonTextTest, InvalidUtf8BecomesTheReplacementCharacter) {
  EXPECT_THROW(json("a\xff").dump(2), json::type_error);
  EXPECT_EQ(Text(json("a\xff"
                      "b")),
            "\"a\xEF\xBF\xBD"
            "b\"");
  EXPECT_EQ(Text(json("\xc3")), "\"\xEF\xBF\xBD\"");                         // cut short
  EXPECT_EQ(Text(json("\xed\xa0\x80")).substr(0, 4), "\"\xEF\xBF\xBD");      // a surrogate
  EXPECT_EQ(Text(json("\xc0\xaf")).substr(0, 4), "\"\xEF\xBF\xBD");          // overlong
  EXPECT_EQ(Text(json("\xf4\x90\x80\x80")).substr(0, 4), "\"\xEF\xBF\xBD");  // > U+10FFFF
}

// With a file, the text goes there in pieces; the same bytes in the end.
TEST(JsonTextTest, AFileGetsTheSameBytes) {
  json big = json::array();
  for (int i = 0; i < 100000; ++i) big.push_back({{"i", i}, {"s", "some text"}});
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  {
    JsonText out(file);
    out.Value(big, 0);
    EXPECT_LT(out.text().size(), 2u << 20);  // flushed as it went
  }
  std::string read(static_cast<size_t>(std::ftell(file)), '\0');
  std::rewind(file);
  ASSERT_EQ(std::fread(read.data(), 1, read.size(), file), read.size());
  std::fclose(file);
  EXPECT_EQ(read, big.dump(2));
}

}  // namespace
}  // namespace heaprec::analyzers
