// heapreplay's command line: analyses and outputs named, values in both
// spellings, and one clear error for each combination that makes no sense.
#include "heapreplay/options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace heaprec::heapreplay {
namespace {

bool Parse(std::vector<const char*> args, Options* o, std::string* error) {
  args.insert(args.begin(), "heapreplay");
  std::vector<char*> argv;
  for (const char* a : args) argv.push_back(const_cast<char*>(a));
  return ParseOptions(static_cast<int>(argv.size()), argv.data(), o, error);
}

TEST(ReplayOptionsTest, AnalysesOutputsAndValues) {
  Options o;
  std::string error;
  ASSERT_TRUE(Parse({"--leaks", "--peak", "--top=3", "--flamegraph", "f.svg", "--metric=count",
                     "--pprof=p.pb.gz", "--at", "loaded", "t.zst"},
                    &o, &error))
      << error;
  EXPECT_TRUE(o.report.leaks);
  EXPECT_TRUE(o.report.peak);
  EXPECT_FALSE(o.report.overview);
  EXPECT_EQ(o.report.top, 3u);
  EXPECT_EQ(o.flamegraph, "f.svg");
  EXPECT_EQ(o.metric, analyzers::Metric::kCount);
  EXPECT_EQ(o.pprof, "p.pb.gz");
  EXPECT_EQ(o.at, "loaded");
  EXPECT_EQ(o.trace, "t.zst");
}

TEST(ReplayOptionsTest, NoAnalysisIsTheOverview) {
  Options o;
  std::string error;
  ASSERT_TRUE(Parse({"--json", "t.zst"}, &o, &error));
  EXPECT_TRUE(o.report.overview);
}

TEST(ReplayOptionsTest, FromOrBaseImpliesDiff) {
  Options o;
  std::string error;
  ASSERT_TRUE(Parse({"--base", "old.zst", "new.zst"}, &o, &error));
  EXPECT_TRUE(o.diff);
  EXPECT_FALSE(o.report.overview);
}

TEST(ReplayOptionsTest, DoubleDashEndsOptions) {
  Options o;
  std::string error;
  ASSERT_TRUE(Parse({"--json", "--", "-t.zst"}, &o, &error)) << error;
  EXPECT_TRUE(o.json);
  EXPECT_EQ(o.trace, "-t.zst");
}

TEST(ReplayOptionsTest, UsageListsTheOptions) {
  const std::string usage = UsageText();
  EXPECT_EQ(usage.rfind("usage: heapreplay [analyses] [output options] TRACE\n", 0), 0u);
  for (const char* listed : {"  --leaks  ", "  --at MOMENT  ", "  -h, --help  ", "  --plot F  "}) {
    EXPECT_NE(usage.find(listed), std::string::npos) << listed;
  }
}

TEST(ReplayOptionsTest, Bench) {
  Options o;
  std::string error;
  ASSERT_TRUE(Parse({"--bench", "t.zst"}, &o, &error)) << error;
  EXPECT_TRUE(o.bench);
  EXPECT_EQ(o.allocators, "glibc,tcmalloc,jemalloc,mimalloc");
  EXPECT_EQ(o.repeat, 5);
  EXPECT_EQ(o.touch, "page");
  Options p;
  ASSERT_TRUE(Parse({"--bench", "--allocators=glibc,/x/libfoo.so", "--repeat", "3", "--touch",
                     "full", "--json", "t.zst"},
                    &p, &error))
      << error;
  EXPECT_EQ(p.allocators, "glibc,/x/libfoo.so");
  EXPECT_EQ(p.repeat, 3);
  EXPECT_EQ(p.touch, "full");
  EXPECT_TRUE(p.json);
}

// Several traces (or a folder, which main tells apart) ask for the process
// table: every one is kept, the first also as trace.
TEST(ReplayOptionsTest, SeveralTraces) {
  Options o;
  std::string error;
  ASSERT_TRUE(Parse({"--json", "a.zst", "b.zst", "c.zst"}, &o, &error)) << error;
  EXPECT_EQ(o.trace, "a.zst");
  EXPECT_EQ(o.traces, (std::vector<std::string>{"a.zst", "b.zst", "c.zst"}));
  EXPECT_TRUE(o.json);
}

TEST(ReplayOptionsTest, ErrorsAreOneLine) {
  const struct {
    std::vector<const char*> args;
    std::string error;
  } cases[] = {
      {{}, "no trace given"},
      {{"--bogus", "t.zst"}, "unknown option '--bogus'"},
      {{"--leaks=1", "t.zst"}, "unknown option '--leaks=1'"},
      {{"--top", "x", "t.zst"}, "--top needs a number, not 'x'"},
      {{"--top", "-1", "t.zst"}, "--top needs a number, not '-1'"},
      {{"t.zst", "--at"}, "--at needs a value"},
      {{"--metric", "calls", "--folded", "t.zst"}, "--metric is bytes or count, not 'calls'"},
      {{"--metric", "count", "t.zst"}, "--metric is for --folded and --flamegraph"},
      {{"--diff", "t.zst"},
       "--diff needs --from MOMENT (and optionally --to MOMENT) or --base OTHER.zst"},
      {{"--from", "a", "--base", "b.zst", "t.zst"},
       "--diff takes --from/--to within one trace or --base, not both"},
      {{"--from", "a", "--at", "b", "t.zst"}, "--at and --diff do not mix (use --from and --to)"},
      {{"--bench", "--repeat", "0", "t.zst"}, "--repeat needs a number from 1 to 1000, not '0'"},
      {{"--bench", "--touch", "half", "t.zst"}, "--touch is page, full or none, not 'half'"},
  };
  for (const auto& c : cases) {
    Options o;
    std::string error;
    EXPECT_FALSE(Parse(c.args, &o, &error)) << c.error;
    EXPECT_EQ(error, c.error);
  }
}

}  // namespace
}  // namespace heaprec::heapreplay
