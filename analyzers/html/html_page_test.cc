// HtmlPage: the data goes in whole (and comes back the same from the page's
// script element), nothing in it can end that element, the libraries are
// inline and no placeholder is left.
#include "analyzers/html/html_page.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <string>

namespace heaprec::analyzers::html {
namespace {

using nlohmann::json;

TEST(HtmlPageTest, TheDataGoesInWholeAndCannotEndItsScript) {
  const json data = {{"function", "operator</script><script>alert(1)</script>"},
                     {"bad", std::string("a\xff"
                                         "b")},
                     {"n", 12345678901234}};
  const std::string page = HtmlPage(data);
  const std::string open = "<script type=\"application/json\" id=\"heaprec-data\">";
  const size_t at = page.find(open);
  ASSERT_NE(at, std::string::npos);
  const size_t start = at + open.size(), end = page.find("</script>", start);
  ASSERT_NE(end, std::string::npos);
  const json back = json::parse(page.substr(start, end - start));
  EXPECT_EQ(back["function"], data["function"]);
  EXPECT_EQ(back["bad"],
            "a\xef\xbf\xbd"
            "b");
  EXPECT_EQ(back["n"], 12345678901234);
  // The libraries are inline, and no placeholder is left.
  EXPECT_NE(page.find("uPlot"), std::string::npos);
  EXPECT_NE(page.find("flamegraph"), std::string::npos);
  for (const char* mark : {"CSS", "LIBS", "DATA", "APP"}) {
    EXPECT_EQ(page.find("/*@HEAPREC_" + std::string(mark) + "@*/"), std::string::npos) << mark;
  }
}

// Inverse of base64 (no padding checks: the test's own data).
std::string FromBase64(const std::string& text) {
  std::string out;
  uint32_t v = 0;
  int bits = 0;
  for (char c : text) {
    const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char* at = std::strchr(digits, c);
    if (c == '=' || at == nullptr) continue;
    v = v << 6 | uint32_t(at - digits);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += char((v >> bits) & 0xff);
    }
  }
  return out;
}

std::string Gunzip(const std::string& gz) {
  z_stream z{};
  inflateInit2(&z, 15 + 16);
  std::string out(1 << 20, '\0'), all;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = uInt(gz.size());
  int status = Z_OK;
  while (status == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = uInt(out.size());
    status = inflate(&z, Z_NO_FLUSH);
    all.append(out.data(), out.size() - z.avail_out);
  }
  inflateEnd(&z);
  return status == Z_STREAM_END ? all : "";
}

TEST(HtmlPageTest, LargeDataIsGzippedAndComesBackTheSame) {
  json data = {{"function", "a</script>b"}, {"values", json::array()}};
  for (int i = 0; i < 100000; ++i) data["values"].push_back(i * 7);
  const std::string small = DataElementText(data, /*compress_above=*/100000000);
  ASSERT_EQ(small[0], '{');
  const std::string packed = DataElementText(data, /*compress_above=*/1000);
  ASSERT_NE(packed[0], '{');
  EXPECT_EQ(
      packed.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="),
      std::string::npos);
  EXPECT_LT(packed.size(), small.size() / 2);
  EXPECT_EQ(json::parse(Gunzip(FromBase64(packed))), data);
  EXPECT_EQ(Gunzip(FromBase64(packed)), small);
}

}  // namespace
}  // namespace heaprec::analyzers::html
