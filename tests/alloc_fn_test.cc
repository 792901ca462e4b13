// heapreplay --alloc-fn end to end: tests/alloc_wrapper leaks through one
// wrapper, my_xmalloc, from two callers. Without --alloc-fn every leak site's
// "via" is my_xmalloc and the top table's flat is all its; with --alloc-fn
// my_xmalloc the sites come "via" from_parser (3000 bytes) and from_loader
// (6000 bytes), in JSON and in text, and flat moves to them.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/e2e_util.h"

namespace heaprec::tests {
namespace {

std::string Heapreplay() { return Runfile("replay/heapreplay"); }

std::string RecordAllocWrapper() {
  const std::string trace = MakeTempDir("alloc_fn") + "/alloc_wrapper.zst";
  const ProcessResult run = RunHeaprec(trace, {Runfile("tests/alloc_wrapper")});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return trace;
}

// Leaked bytes by "via", and each site's innermost function.
std::map<std::string, int> LeaksByVia(const nlohmann::json& j) {
  std::map<std::string, int> by_via;
  for (const auto& site : j["leaks"]["sites"]) {
    EXPECT_EQ(site["stack"][0]["function"], "my_xmalloc") << site.dump();
    by_via[site["via"].get<std::string>()] += site["bytes"].get<int>();
  }
  return by_via;
}

TEST(AllocFnTest, ViaIsTheWrapperUnlessItIsFolded) {
  const std::string trace = RecordAllocWrapper();
  const ProcessResult plain = RunProgram({Heapreplay(), "--leaks", "--json", trace});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const nlohmann::json pj = nlohmann::json::parse(plain.out);
  EXPECT_EQ(pj["leaks"]["bytes"], 9000);
  EXPECT_EQ(LeaksByVia(pj), (std::map<std::string, int>{{"my_xmalloc", 9000}}));

  const ProcessResult folded =
      RunProgram({Heapreplay(), "--leaks", "--json", "--alloc-fn", "my_xmalloc", trace});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  const nlohmann::json fj = nlohmann::json::parse(folded.out);
  EXPECT_EQ(LeaksByVia(fj),
            (std::map<std::string, int>{{"from_parser", 3000}, {"from_loader", 6000}}));
  for (const auto& site : fj["leaks"]["sites"]) {
    EXPECT_EQ(site["stack"][0]["allocator"], true) << site.dump();
    EXPECT_EQ(site["stack"][1]["allocator"], false) << site.dump();
  }
}

TEST(AllocFnTest, TextNamesTheViaAndFlatMovesToIt) {
  const std::string trace = RecordAllocWrapper();
  const ProcessResult plain = RunProgram({Heapreplay(), "--leaks", trace});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out.find("via "), std::string::npos) << plain.out;
  // flat: all 9000 bytes in my_xmalloc (8.8 KiB, 100%).
  EXPECT_NE(plain.out.find("8.8 KiB 100.00% 100.00%    8.8 KiB 100.00%  my_xmalloc"),
            std::string::npos)
      << plain.out;

  const ProcessResult folded =
      RunProgram({Heapreplay(), "--leaks", "--alloc-fn", "my_xmalloc", trace});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  for (const char* want : {"      via from_loader\n      (allocator) my_xmalloc  tests/programs/",
                           "      via from_parser\n      (allocator) my_xmalloc  tests/programs/",
                           "66.67%  from_loader", "33.33%  from_parser"}) {
    EXPECT_NE(folded.out.find(want), std::string::npos) << want << "\n" << folded.out;
  }
}

TEST(AllocFnTest, AnEmptyNameIsAnError) {
  const ProcessResult r =
      RunProgram({Heapreplay(), "--leaks", "--alloc-fn", "my_xmalloc,", "no_such.zst"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--alloc-fn: empty function name"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace heaprec::tests
