// HtmlPage: the data goes in whole (and comes back the same from the page's
// script element), nothing in it can end that element, the libraries are
// inline and no placeholder is left.
#include "analyzers/html/html_page.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace heaprec::analyzers::html
