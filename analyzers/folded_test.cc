// FoldedStacks over a hand-built symbol table: the whole output against a
// golden file, then each rule on its own (merging, metric, zeros, no stack,
// unknown functions, names that would break the format).
//
// The golden files are analyzers/testdata/folded_{bytes,count}.txt. After a
// deliberate change of the format, regenerate them and review the diff:
//   HEAPREC_UPDATE_GOLDEN=1 bazel run //analyzers:folded_test
//   git diff analyzers/testdata/
#include "analyzers/folded.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "analyzers/folded_paths.h"
#include "analyzers/golden_file.h"
#include "analyzers/test_symbols.h"

namespace heaprec::analyzers {
namespace {

constexpr uint64_t kMain = 0x400100;
constexpr uint64_t kParseAt20 = 0x400200;
constexpr uint64_t kParseAt22 = 0x400210;  // the same function, another call
constexpr uint64_t kInlinedChain = 0x400300;
constexpr uint64_t kOddName = 0x400400;
constexpr uint64_t kNamelessSymbol = 0x400500;  // a Symbol without frames
constexpr uint64_t kInLibFoo = 0x1100;          // no Symbol, inside libfoo.so
constexpr uint64_t kNowhere = 0x9999;           // no Symbol, no module

class FoldedTest : public testing::Test {
 protected:
  FoldedTest() {
    s_.AddModule(1, "/usr/lib/libfoo.so", 0x1000, 0x2000);
    s_.AddModule(2, "/opt/app/bin/app", 0x400000, 0x500000);
    s_.AddSymbol(kMain, 2, {{"main", "app.cc", 10}});
    s_.AddSymbol(kParseAt20, 2, {{"parse", "app.cc", 20}});
    s_.AddSymbol(kParseAt22, 2, {{"parse", "app.cc", 22}});
    // push_back inlined into Grow<int>, itself inlined into build.
    s_.AddSymbol(kInlinedChain, 2,
                 {{"std::vector<int, std::allocator<int> >::push_back", "stl_vector.h", 1198},
                  {"Grow<int>", "grow.h", 5},
                  {"build(std::map<int, char>&)", "app.cc", 40}});
    s_.AddSymbol(kOddName, 2, {{"odd;name\nwith\rbreaks\tand tab", "odd.cc", 1}});
    s_.AddSymbol(kNamelessSymbol, 2, {});
  }

  // Every rule at once: what the golden files hold.
  std::vector<Site> AllSites() {
    return {
        {s_.Stack({kMain, kParseAt20}), 100, 1},
        {s_.Stack({kMain, kParseAt22}), 200, 2},  // merges with the line above
        {s_.Stack({kMain, kInlinedChain}), 300, 3},
        {s_.Stack({kMain, kOddName}), 40, 4},
        {s_.Stack({kMain, kInLibFoo}), 90, 5},
        {s_.Stack({kNowhere, kMain}), 70, 6},
        {s_.Stack({kMain, kNamelessSymbol}), 80, 7},
        {s_.Stack({kMain}), 0, 8},  // no bytes: only in the count output
        {0, 5, 9},
        {12345, 6, 0},  // a stack id the trace never defined; no count
    };
  }

  TestSymbols s_;
};

TEST_F(FoldedTest, BytesMatchGoldenFile) {
  ExpectGolden("folded_bytes.txt", FoldedStacks(AllSites(), Metric::kBytes, s_.table()));
}

TEST_F(FoldedTest, CountsMatchGoldenFile) {
  ExpectGolden("folded_count.txt", FoldedStacks(AllSites(), Metric::kCount, s_.table()));
}

TEST_F(FoldedTest, MergesStacksThatNameTheSamePath) {
  const std::vector<Site> sites = {{s_.Stack({kMain, kParseAt20}), 100, 1},
                                   {s_.Stack({kMain, kParseAt22}), 200, 2}};
  ASSERT_NE(sites[0].stack, sites[1].stack);
  EXPECT_EQ(FoldedStacks(sites, Metric::kBytes, s_.table()), "main;parse 300\n");
  // The merged frame keeps the file both agree on, not either line.
  const std::vector<FoldedPath> paths = FoldPaths(sites, Metric::kBytes, s_.table());
  ASSERT_EQ(paths.size(), 1u);
  ASSERT_EQ(paths[0].frames.size(), 2u);
  EXPECT_EQ(paths[0].frames[0].file, "app.cc");
  EXPECT_EQ(paths[0].frames[0].line, 10u);
  EXPECT_EQ(paths[0].frames[1].file, "app.cc");
  EXPECT_EQ(paths[0].frames[1].line, 0u);
}

TEST_F(FoldedTest, WeighsByTheChosenMetric) {
  const std::vector<Site> sites = {{s_.Stack({kMain}), 4096, 3}};
  EXPECT_EQ(FoldedStacks(sites, Metric::kBytes, s_.table()), "main 4096\n");
  EXPECT_EQ(FoldedStacks(sites, Metric::kCount, s_.table()), "main 3\n");
}

TEST_F(FoldedTest, SkipsSitesWithoutValue) {
  const std::vector<Site> sites = {{s_.Stack({kMain}), 0, 3}, {s_.Stack({kMain, kOddName}), 8, 0}};
  EXPECT_EQ(FoldedStacks(sites, Metric::kBytes, s_.table()),
            "main;odd:name with breaks and tab 8\n");
  EXPECT_EQ(FoldedStacks(sites, Metric::kCount, s_.table()), "main 3\n");
  EXPECT_EQ(FoldedStacks({}, Metric::kBytes, s_.table()), "");
}

TEST_F(FoldedTest, StackZeroIsOneFrame) {
  EXPECT_EQ(FoldedStacks({{0, 7, 1}, {0, 3, 1}}, Metric::kBytes, s_.table()), "[no stack] 10\n");
}

TEST_F(FoldedTest, UnknownFunctionsNamedByModuleAndOffsetOrAddress) {
  const std::vector<Site> sites = {{s_.Stack({kInLibFoo}), 1, 1},
                                   {s_.Stack({kNowhere}), 2, 1},
                                   {s_.Stack({kNamelessSymbol}), 4, 1}};
  EXPECT_EQ(FoldedStacks(sites, Metric::kBytes, s_.table()),
            "0x9999 2\n"
            "app+0x500 4\n"
            "libfoo.so+0x100 1\n");
}

TEST_F(FoldedTest, InlinedFramesAreMarkedOutermostFirst) {
  const std::vector<Site> sites = {{s_.Stack({kMain, kInlinedChain}), 64, 1}};
  EXPECT_EQ(FoldedStacks(sites, Metric::kBytes, s_.table()),
            "main;build(std::map<int, char>&);Grow<int>_[i];"
            "std::vector<int, std::allocator<int> >::push_back_[i] 64\n");
}

// FoldPaths and FoldNames name each return address once; what they give
// must be what naming every site's whole stack gives (PathOf), merged by
// joined names, locations kept only where merged frames agree.
TEST_F(FoldedTest, SameAsNamingEachStackWhole) {
  const std::vector<uint64_t> addresses = {kMain,    kParseAt20,      kParseAt22, kInlinedChain,
                                           kOddName, kNamelessSymbol, kInLibFoo,  kNowhere};
  std::mt19937_64 rng(12345);
  std::vector<Site> sites;
  for (int i = 0; i < 400; ++i) {
    const uint32_t id = rng() % 20 == 0   ? 0
                        : rng() % 30 == 0 ? 99999
                                          : s_.RandomStack(rng, addresses, 5);
    sites.push_back({id, rng() % 4 * 10, rng() % 3});
  }
  for (const Metric metric : {Metric::kBytes, Metric::kCount}) {
    std::map<std::string, FoldedPath> want;
    for (const Site& site : sites) {
      if (ValueOf(site, metric) == 0) continue;
      const std::vector<PathFrame> path = PathOf(site.stack, s_.table());
      std::string key;
      for (const PathFrame& f : path) key += (key.empty() ? "" : ";") + f.name;
      auto [it, added] = want.try_emplace(key);
      if (added) {
        it->second.frames = path;
      } else {
        for (size_t i = 0; i < path.size(); ++i) MergeLocation(path[i], &it->second.frames[i]);
      }
      it->second.value += ValueOf(site, metric);
    }
    const std::vector<FoldedPath> got = FoldPaths(sites, metric, s_.table());
    ASSERT_EQ(got.size(), want.size());
    // FoldNames: the same paths, as joined names and values, in the same order.
    const std::vector<std::pair<std::string, uint64_t>> names =
        FoldNames(sites, metric, s_.table());
    ASSERT_EQ(names.size(), want.size());
    size_t n = 0;
    for (const auto& [key, path] : want) {
      EXPECT_EQ(names[n].first, key);
      EXPECT_EQ(names[n].second, path.value) << key;
      ++n;
    }
    size_t k = 0;
    for (const auto& [key, path] : want) {
      const FoldedPath& g = got[k++];
      EXPECT_EQ(g.value, path.value) << key;
      ASSERT_EQ(g.frames.size(), path.frames.size()) << key;
      for (size_t i = 0; i < path.frames.size(); ++i) {
        EXPECT_EQ(g.frames[i].name, path.frames[i].name) << key;
        EXPECT_EQ(g.frames[i].file, path.frames[i].file) << key;
        EXPECT_EQ(g.frames[i].line, path.frames[i].line) << key;
        EXPECT_EQ(g.frames[i].inlined, path.frames[i].inlined) << key;
      }
    }
  }
}

TEST(FoldedNameTest, NeverSplitsAPathOrALine) {
  Frame f;
  f.function = "a;b\nc\rd";
  EXPECT_EQ(FoldedName(f), "a:b c d");
  f.function = "??";
  f.module = "lib;x.so";
  f.offset = 0x1f069;
  EXPECT_EQ(FoldedName(f), "lib:x.so+0x1f069");
  f.module.clear();
  f.address = 0x4011d6;
  f.inlined = true;
  EXPECT_EQ(FoldedName(f), "0x4011d6_[i]");
}

}  // namespace
}  // namespace heaprec::analyzers
