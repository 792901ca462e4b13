// heapreplay's plan: only what the options ask for runs, and a malformed
// moment is one usage line naming its option.
#include "heapreplay/analysis_plan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace heaprec::heapreplay {
namespace {

Options Parsed(std::vector<const char*> args) {
  args.insert(args.begin(), "heapreplay");
  args.push_back("t.zst");
  Options o;
  std::string error;
  EXPECT_TRUE(
      ParseOptions(static_cast<int>(args.size()), const_cast<char**>(args.data()), &o, &error))
      << error;
  return o;
}

TEST(AnalysisPlanTest, OnlyWhatIsAskedRuns) {
  std::string error;
  const auto overview = AnalysisPlan::Make(Parsed({}), &error);
  ASSERT_NE(overview, nullptr) << error;
  EXPECT_TRUE(overview->peak_run);
  EXPECT_TRUE(overview->hot_run);
  EXPECT_EQ(overview->before, nullptr);
  EXPECT_EQ(overview->after, nullptr);

  const auto leaks = AnalysisPlan::Make(Parsed({"--leaks", "--folded"}), &error);
  ASSERT_NE(leaks, nullptr);
  EXPECT_FALSE(leaks->peak_run);
  EXPECT_FALSE(leaks->hot_run);  // --folded draws the leaks

  // --pprof's alloc samples are hot sites; --folded alone draws them.
  EXPECT_TRUE(AnalysisPlan::Make(Parsed({"--leaks", "--pprof", "p.pb.gz"}), &error)->hot_run);
  EXPECT_TRUE(AnalysisPlan::Make(Parsed({"--folded"}), &error)->hot_run);

  // Lifetimes are shown only in the JSON and on the page.
  EXPECT_FALSE(AnalysisPlan::Make(Parsed({"--temporaries", "--hot"}), &error)->lifetimes_run);
  EXPECT_TRUE(AnalysisPlan::Make(Parsed({"--temporaries", "--json"}), &error)->lifetimes_run);
  EXPECT_FALSE(AnalysisPlan::Make(Parsed({"--leaks", "--json"}), &error)->lifetimes_run);
  EXPECT_TRUE(AnalysisPlan::Make(Parsed({"--html", "r.html"}), &error)->lifetimes_run);

  const auto within = AnalysisPlan::Make(Parsed({"--from", "loaded", "--to", "1s"}), &error);
  ASSERT_NE(within, nullptr);
  EXPECT_NE(within->before, nullptr);
  EXPECT_NE(within->after, nullptr);
  const auto across = AnalysisPlan::Make(Parsed({"--base", "old.zst"}), &error);
  ASSERT_NE(across, nullptr);
  EXPECT_EQ(across->before, nullptr);  // the base trace's end instead
  EXPECT_NE(across->after, nullptr);
}

TEST(AnalysisPlanTest, MalformedMomentIsAUsageLine) {
  std::string error;
  EXPECT_EQ(AnalysisPlan::Make(Parsed({"--from", "loaded", "--to", "1.5.5s"}), &error), nullptr);
  EXPECT_EQ(error.rfind("--to: '1.5.5s' is not a time", 0), 0u) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace heaprec::heapreplay
