// XmlEscape and FitLabel on the names C++ programs have: templates,
// operators, and bytes that are not text at all.
#include "analyzers/svg_text.h"

#include <gtest/gtest.h>

namespace heaprec::analyzers {
namespace {

TEST(XmlEscapeTest, EscapesMarkup) {
  EXPECT_EQ(XmlEscape("std::map<K, V>::operator[](K const&) \"a\" 'b'"),
            "std::map&lt;K, V&gt;::operator[](K const&amp;) &quot;a&quot; &apos;b&apos;");
  EXPECT_EQ(XmlEscape("operator<<=(int)>"), "operator&lt;&lt;=(int)&gt;");
}

TEST(XmlEscapeTest, KeepsUtf8AndLineBreaks) {
  EXPECT_EQ(XmlEscape("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x94\xA5\n\tx"),
            "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x94\xA5\n\tx");
}

TEST(XmlEscapeTest, ReplacesWhatXmlCannotHold) {
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(XmlEscape(std::string("a\x01"
                                  "b\0c",
                                  5)),
            "a" + r + "b" + r + "c");
  EXPECT_EQ(XmlEscape("\xFF"), r);                          // never UTF-8
  EXPECT_EQ(XmlEscape("\xC3"), r);                          // cut short
  EXPECT_EQ(XmlEscape("\xC0\xAF"), r + r);                  // overlong '/'
  EXPECT_EQ(XmlEscape("\xED\xA0\x80"), r + r + r);          // a UTF-16 surrogate
  EXPECT_EQ(XmlEscape("\xF4\x90\x80\x80"), r + r + r + r);  // above U+10FFFF
  EXPECT_EQ(XmlEscape("\xEF\xBF\xBF"), r);                  // U+FFFF
}

TEST(FitLabelTest, CutsWithTwoDots) {
  EXPECT_EQ(FitLabel("function", 8), "function");
  EXPECT_EQ(FitLabel("function", 7), "funct..");
  EXPECT_EQ(FitLabel("function", 3), "f..");
  EXPECT_EQ(FitLabel("function", 2), "");
  EXPECT_EQ(FitLabel("", 10), "");
}

TEST(FitLabelTest, CountsCharactersNotBytes) {
  EXPECT_EQ(FitLabel("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 4), "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9");
  EXPECT_EQ(FitLabel("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 3), "\xC3\xA9..");
}

}  // namespace
}  // namespace heaprec::analyzers
