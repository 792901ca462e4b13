// FlameGraphSvg read back at the level of the markup: well-formed, one frame
// group per expected frame with its exact title, widths in proportion to
// values, names escaped, the script inline, narrow frames pruned.
#include "analyzers/flamegraph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "analyzers/flame_tree.h"
#include "analyzers/svg_test_reader.h"
#include "analyzers/test_symbols.h"

namespace heaprec::analyzers {
namespace {

constexpr uint64_t kMain = 0x400010;
constexpr uint64_t kA = 0x400020;
constexpr uint64_t kB = 0x400030;
constexpr uint64_t kC = 0x400040;
constexpr uint64_t kTemplate = 0x400050;
constexpr uint64_t kInlined = 0x400060;
constexpr uint64_t kMiB = 1 << 20;
constexpr double kFullWidth = 1180;  // 1200 px less 10 px each side

class FlameGraphTest : public testing::Test {
 protected:
  FlameGraphTest() {
    s_.AddModule(1, "/opt/app/bin/app", 0x400000, 0x500000);
    s_.AddSymbol(kMain, 1, {{"main", "app.cc", 5}});
    s_.AddSymbol(kA, 1, {{"a", "app.cc", 10}});
    s_.AddSymbol(kB, 1, {{"b", "b.cc", 20}});
    s_.AddSymbol(kC, 1, {{"c"}});
    s_.AddSymbol(kTemplate, 1, {{"Foo<A&B>::bar(\"x\", 'y')", "foo.h", 9}});
    s_.AddSymbol(kInlined, 1, {{"inner", "in.h", 3}, {"outer", "out.cc", 7}});
  }

  // all = main = 4 MiB: a (2 MiB, half of it in c) and b (2 MiB).
  std::vector<Site> Tree() {
    return {{s_.Stack({kMain, kA}), kMiB, 1},
            {s_.Stack({kMain, kA, kC}), kMiB, 2},
            {s_.Stack({kMain, kB}), 2 * kMiB, 3}};
  }

  std::string Svg(const std::vector<Site>& sites, Metric metric = Metric::kBytes,
                  FlameGraphOptions options = {}) {
    return FlameGraphSvg(sites, metric, s_.table(), options);
  }

  TestSymbols s_;
};

// BuildFlameTree orders and groups paths by their frames' names as ranks;
// the tree must be the one comparing the names themselves builds, with names
// where bytewise order and order by frames differ ("a" < "a(" < "a:b" <
// "ab" while "a(;" < "a:" < "a;").
void Build(std::vector<const FoldedPath*>& paths, size_t begin, size_t end, size_t depth,
           FlameNode* node) {
  for (size_t i = begin; i < end; ++i) node->value += paths[i]->value;
  for (size_t i = begin; i < end;) {
    if (paths[i]->frames.size() == depth) {
      ++i;
      continue;
    }
    FlameNode child;
    child.frame = paths[i]->frames[depth];
    size_t j = i + 1;
    for (; j < end && paths[j]->frames.size() > depth &&
           paths[j]->frames[depth].name == child.frame.name;
         ++j) {
      MergeLocation(paths[j]->frames[depth], &child.frame);
    }
    Build(paths, i, j, depth + 1, &child);
    node->children.push_back(std::move(child));
    i = j;
  }
}

void ExpectSameTree(const FlameNode& got, const FlameNode& want, const std::string& where) {
  EXPECT_EQ(got.frame.name, want.frame.name) << where;
  EXPECT_EQ(got.frame.file, want.frame.file) << where;
  EXPECT_EQ(got.frame.line, want.frame.line) << where;
  EXPECT_EQ(got.frame.inlined, want.frame.inlined) << where;
  EXPECT_EQ(got.value, want.value) << where;
  ASSERT_EQ(got.children.size(), want.children.size()) << where;
  for (size_t i = 0; i < got.children.size(); ++i) {
    ExpectSameTree(got.children[i], want.children[i], where + ";" + want.children[i].frame.name);
  }
}

TEST(FlameTreeTest, SameAsComparingTheNames) {
  const std::vector<std::string> names = {"a", "a(", "a:b", "ab", "a b", "b", "Z", "main"};
  std::mt19937_64 rng(99);
  auto below = [&rng](uint64_t n) { return rng() % n; };
  std::vector<FoldedPath> paths;
  std::set<std::vector<std::string>> seen;  // FoldPaths gives each path of names once
  for (int i = 0; i < 300; ++i) {
    FoldedPath p;
    std::vector<std::string> key;
    const size_t depth = 1 + below(5);
    for (size_t d = 0; d < depth; ++d) {
      const std::string& name = names[below(names.size())];
      key.push_back(name);
      p.frames.push_back({name, below(2) == 0 ? "x.cc" : "y.cc", uint32_t(below(3)), false});
    }
    p.value = 1 + below(1000);
    if (seen.insert(key).second) paths.push_back(p);
  }
  std::vector<const FoldedPath*> sorted;
  for (const FoldedPath& p : paths) sorted.push_back(&p);
  std::sort(sorted.begin(), sorted.end(), [](const FoldedPath* a, const FoldedPath* b) {
    return std::lexicographical_compare(
        a->frames.begin(), a->frames.end(), b->frames.begin(), b->frames.end(),
        [](const PathFrame& x, const PathFrame& y) { return x.name < y.name; });
  });
  FlameNode want;
  want.frame.name = "all";
  Build(sorted, 0, sorted.size(), 0, &want);
  ExpectSameTree(BuildFlameTree(paths), want, "all");
}

TEST_F(FlameGraphTest, IsWellFormed) {
  FlameGraphOptions o;
  o.title = "leaks of <app> & co";
  o.subtitle = "\"quoted\" 'too'";
  const std::string svg =
      Svg({{s_.Stack({kMain, kTemplate}), 10, 1}, {s_.Stack({kMain, kInlined}), 10, 1}},
          Metric::kBytes, o);
  EXPECT_EQ(XmlProblem(svg), "");
  EXPECT_TRUE(svg.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\""));
  EXPECT_NE(svg.find("leaks of &lt;app&gt; &amp; co</text>"), std::string::npos);
  EXPECT_NE(svg.find("&quot;quoted&quot; &apos;too&apos;</text>"), std::string::npos);
  // The checker can fail.
  EXPECT_NE(XmlProblem("<svg><g></svg>"), "");
  EXPECT_NE(XmlProblem("<svg><text>a & b</text></svg>"), "");
  EXPECT_NE(XmlProblem("<svg><rect x=1/></svg>"), "");
  EXPECT_NE(XmlProblem("<svg><rect x=\"&\"/></svg>"), "");
  EXPECT_NE(XmlProblem("<svg/><svg/>"), "");
  EXPECT_EQ(XmlProblem("<?xml?>\n<svg a=\"&lt;\"><![CDATA[<&]]><g/>&amp;</svg>\n"), "");
}

TEST_F(FlameGraphTest, OneGroupPerFrameWithExactTitles) {
  const std::vector<DrawnFrame> f = FramesOf(Svg(Tree()));
  ASSERT_EQ(f.size(), 5u);  // callees left to right in name order
  EXPECT_EQ(f[0].title, "all\n4.0 MiB (100.00%), 4194304 bytes");
  EXPECT_EQ(f[1].title, "main\n4.0 MiB (100.00%), 4194304 bytes\napp.cc:5");
  EXPECT_EQ(f[2].title, "a\n2.0 MiB (50.00%), 2097152 bytes\napp.cc:10");
  EXPECT_EQ(f[3].title, "c\n1.0 MiB (25.00%), 1048576 bytes");
  EXPECT_EQ(f[4].title, "b\n2.0 MiB (50.00%), 2097152 bytes\nb.cc:20");
  EXPECT_EQ(f[0].label, "all");
  EXPECT_EQ(f[4].label, "b");
}

TEST_F(FlameGraphTest, WidthsFollowValuesAndTheRootIsAtTheBottom) {
  const std::vector<DrawnFrame> f = FramesOf(Svg(Tree()));
  ASSERT_EQ(f.size(), 5u);
  const DrawnFrame &all = f[0], &main = f[1], &a = f[2], &c = f[3], &b = f[4];
  EXPECT_NEAR(all.width, kFullWidth, 0.01);
  EXPECT_NEAR(main.width, all.width, 0.01);
  EXPECT_NEAR(a.width, main.width / 2, 0.01);
  EXPECT_NEAR(c.width, a.width / 2, 0.01);
  EXPECT_NEAR(b.width, main.width / 2, 0.01);
  EXPECT_NEAR(a.x, all.x, 0.01);
  EXPECT_NEAR(c.x, a.x, 0.01);
  EXPECT_NEAR(b.x, a.x + a.width, 0.01);
  EXPECT_EQ(all.y - main.y, 16);
  EXPECT_EQ(main.y - a.y, 16);
  EXPECT_EQ(a.y, b.y);
  EXPECT_EQ(a.y - c.y, 16);

  FlameGraphOptions wide;
  wide.width = 2020;
  const std::vector<DrawnFrame> w = FramesOf(Svg(Tree(), Metric::kBytes, wide));
  ASSERT_EQ(w.size(), 5u);
  EXPECT_NEAR(w[3].width, 500, 0.01);
}

TEST_F(FlameGraphTest, CountsUseTheirUnit) {
  std::vector<DrawnFrame> f = FramesOf(Svg(Tree(), Metric::kCount));
  ASSERT_EQ(f.size(), 5u);
  EXPECT_EQ(f[0].title, "all\n6 allocations (100.00%)");
  EXPECT_EQ(f[4].title, "b\n3 allocations (50.00%)\nb.cc:20");
  EXPECT_NEAR(f[3].width, kFullWidth / 3, 0.01);  // c: 2 of 6

  FlameGraphOptions o;
  o.unit = "blocks";
  f = FramesOf(Svg(Tree(), Metric::kCount, o));
  EXPECT_EQ(f[3].title, "c\n2 blocks (33.33%)");
}

TEST_F(FlameGraphTest, SmallByteCountsAreShownOnce) {
  const std::vector<DrawnFrame> f = FramesOf(Svg({{s_.Stack({kMain}), 640, 1}}));
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[1].title, "main\n640 B (100.00%)\napp.cc:5");
}

TEST_F(FlameGraphTest, EscapesNames) {
  const std::string svg = Svg({{s_.Stack({kMain, kTemplate}), 1, 1}});
  EXPECT_NE(svg.find("<title>Foo&lt;A&amp;B&gt;::bar(&quot;x&quot;, &apos;y&apos;)\n"),
            std::string::npos);
  EXPECT_EQ(svg.find("Foo<A"), std::string::npos);
  const std::vector<DrawnFrame> f = FramesOf(svg);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[2].label, "Foo<A&B>::bar(\"x\", 'y')");
}

TEST_F(FlameGraphTest, InlinedFramesAreMarkedAndTinted) {
  const std::vector<DrawnFrame> f = FramesOf(Svg({{s_.Stack({kMain, kInlined}), 1, 1}}));
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[2].title, "outer\n1 B (100.00%)\nout.cc:7");
  EXPECT_EQ(f[3].title, "inner\n1 B (100.00%)\nin.h:3 (inlined)");
  EXPECT_EQ(f[3].label, "inner");
  // Warm frames are mostly red, inlined ones blue-green.
  int r = 0, g = 0, b = 0;
  ASSERT_EQ(std::sscanf(f[2].fill.c_str(), "rgb(%d,%d,%d)", &r, &g, &b), 3);
  EXPECT_GE(r, 205);
  ASSERT_EQ(std::sscanf(f[3].fill.c_str(), "rgb(%d,%d,%d)", &r, &g, &b), 3);
  EXPECT_LT(r, g);
  EXPECT_LT(r, b);
}

TEST_F(FlameGraphTest, LongNamesAreCutToFit) {
  s_.AddSymbol(0x400070, 1, {{std::string(300, 'x')}});
  const std::vector<DrawnFrame> f = FramesOf(Svg({{s_.Stack({kMain, 0x400070}), 1, 1}}));
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[2].title.substr(0, 301), std::string(300, 'x') + "\n");
  // (1180 - 2 * 3) / 7.08 = 165 characters fit.
  EXPECT_EQ(f[2].label, std::string(163, 'x') + "..");
}

TEST_F(FlameGraphTest, CarriesItsScriptAndNothingExternal) {
  const std::string svg = Svg(Tree());
  EXPECT_NE(svg.find("<script type=\"text/ecmascript\"><![CDATA["), std::string::npos);
  EXPECT_NE(svg.find("function zoom("), std::string::npos);
  EXPECT_NE(svg.find("function askSearch("), std::string::npos);
  EXPECT_NE(svg.find("addEventListener(\"keydown\""), std::string::npos);
  EXPECT_NE(svg.find(">Reset Zoom</text>"), std::string::npos);
  EXPECT_NE(svg.find(">Search</text>"), std::string::npos);
  EXPECT_EQ(svg.find("]]>"), svg.find("]]></script>"));
  for (size_t at = svg.find("http"); at != std::string::npos; at = svg.find("http", at + 1)) {
    EXPECT_EQ(svg.compare(at, 26, "http://www.w3.org/2000/svg"), 0) << svg.substr(at, 40);
  }
  EXPECT_EQ(svg.find("href"), std::string::npos);
  EXPECT_EQ(svg.find("@import"), std::string::npos);
}

TEST_F(FlameGraphTest, EmptyProfileIsOneFrame) {
  const std::string svg = Svg({{s_.Stack({kMain}), 0, 4}});
  EXPECT_EQ(XmlProblem(svg), "");
  const std::vector<DrawnFrame> f = FramesOf(svg);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].title, "all\n0 B (100.00%)");
  EXPECT_NEAR(f[0].width, kFullWidth, 0.01);
}

TEST_F(FlameGraphTest, LeavesOutFramesNarrowerThanATenthOfAPixel) {
  // 0.05 px per byte: b (3 bytes) is 0.15 px wide, c (1 byte) 0.05 px.
  const std::vector<DrawnFrame> f = FramesOf(Svg({{s_.Stack({kMain, kA}), 23596, 1},
                                                  {s_.Stack({kMain, kB}), 3, 1},
                                                  {s_.Stack({kMain, kC}), 1, 1}}));
  ASSERT_EQ(f.size(), 4u);
  EXPECT_TRUE(f[2].title.starts_with("a\n"));
  EXPECT_TRUE(f[3].title.starts_with("b\n"));
  EXPECT_NEAR(f[3].width, 0.15, 0.01);
  EXPECT_NEAR(f[3].x, 10 + 23596 * 0.05, 0.01);
}

TEST_F(FlameGraphTest, AHundredThousandStacksStayASmallFile) {
  std::vector<Site> sites;
  for (uint64_t i = 0; i < 100000; ++i) {
    // No symbol and no module: each its own function, "0x...".
    sites.push_back({s_.Stack({kMain, 0x10000000 + i}), 1 + i % 7, 1});
  }
  const std::string flat = Svg(sites);
  EXPECT_EQ(FramesOf(flat).size(), 2u);  // all, main: each caller is < 0.1 px
  EXPECT_LT(flat.size(), 16u * 1024);

  sites.push_back({s_.Stack({kMain, kA, kC}), uint64_t{1} << 30, 1});
  const std::string big = Svg(sites);
  EXPECT_EQ(XmlProblem(big), "");
  EXPECT_EQ(FramesOf(big).size(), 4u);  // all, main, a, c
  EXPECT_LT(big.size(), 16u * 1024);
}

}  // namespace
}  // namespace heaprec::analyzers
