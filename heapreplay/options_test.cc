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

TEST(ReplayOptionsTest, DebugDirsRepeatedOrAColonList) {
  Options o;
  std::string error;
  ASSERT_TRUE(Parse({"--debug-dir", "/a", "--debug-dir=/b::/c:", "t.zst"}, &o, &error)) << error;
  EXPECT_EQ(o.debug_dirs, (std::vector<std::string>{"/a", "/b", "/c"}));
  EXPECT_FALSE(Parse({"--debug-dir=", "t.zst"}, &o, &error));
  EXPECT_EQ(error, "--debug-dir needs a directory");
}

TEST(ReplayOptionsTest, NoAnalysisIsTheOverview) {
  Options o;
  std::string error;
  ASSERT_TRUE(Parse({"--json", "t.zst"}, &o, &error));
  EXPECT_TRUE(o.report.overview);
}

TEST(ReplayOptionsTest, Version) {
  Options o;
  std::string error;
  ASSERT_TRUE(Parse({"--version"}, &o, &error)) << error;
  EXPECT_TRUE(o.version);
}

// A file alone is written alone; an analysis or a stdout format named also
// prints the report.
TEST(ReplayOptionsTest, WhenStdoutGetsTheReport) {
  const struct {
    std::vector<const char*> args;
    bool to_stdout;
  } cases[] = {
      {{"t.zst"}, true},
      {{"--html", "r.html", "t.zst"}, false},
      {{"--pprof", "p.pb.gz", "t.zst"}, false},
      {{"--flamegraph", "f.svg", "--metric", "count", "t.zst"}, false},
      {{"--html", "r.html", "--pprof", "p.pb.gz", "--flamegraph", "f.svg", "t.zst"}, false},
      {{"--html", "r.html", "--base", "old.zst", "t.zst"}, false},  // the base feeds the page
      {{"--html", "r.html", "--bench-json", "b.json", "t.zst"}, false},
      {{"--html", "r.html", "--bench", "t.zst"}, false},
      {{"--html", "r.html", "--leak-kinds=all", "--top", "3", "t.zst"}, false},
      {{"--pprof", "p.pb.gz", "--leaks", "t.zst"}, true},
      {{"--flamegraph", "f.svg", "--peak", "t.zst"}, true},
      {{"--flamegraph", "f.svg", "--hot", "t.zst"}, true},
      {{"--html", "r.html", "--temporaries", "t.zst"}, true},
      {{"--html", "r.html", "--histogram", "t.zst"}, true},
      {{"--html", "r.html", "--mismatches", "t.zst"}, true},
      {{"--pprof", "p.pb.gz", "--timeline", "t.zst"}, true},
      {{"--pprof", "p.pb.gz", "--from", "a", "t.zst"}, true},
      {{"--pprof", "p.pb.gz", "--base", "old.zst", "t.zst"}, true},
      {{"--html", "r.html", "--json", "t.zst"}, true},
      {{"--flamegraph", "f.svg", "--folded", "t.zst"}, true},
  };
  for (const auto& c : cases) {
    Options o;
    std::string error;
    ASSERT_TRUE(Parse(c.args, &o, &error)) << error;
    EXPECT_EQ(o.report_to_stdout, c.to_stdout) << c.args[0] << " " << c.args[1];
  }
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
      {{}, "no trace given (usage: heapreplay [analyses] [output options] TRACE)"},
      {{"--bogus", "t.zst"}, "unknown option '--bogus' (see heapreplay --help)"},
      {{"--leaks=1", "t.zst"}, "--leaks takes no value ('--leaks=1')"},
      // The nearest name: a letter off, two swapped, or the beginning of one.
      {{"--leak-kind=all", "t.zst"},
       "unknown option '--leak-kind=all'; did you mean '--leak-kinds'?"},
      {{"--peek", "t.zst"}, "unknown option '--peek'; did you mean '--peak'?"},
      {{"--tiemline", "t.zst"}, "unknown option '--tiemline'; did you mean '--timeline'?"},
      {{"--temp", "t.zst"}, "unknown option '--temp'; did you mean '--temporaries'?"},
      {{"--flame", "f.svg", "t.zst"}, "unknown option '--flame'; did you mean '--flamegraph'?"},
      {{"--versoin"}, "unknown option '--versoin'; did you mean '--version'?"},
      // A file option that took the trace as its value.
      {{"--html", "t.zst"},
       "--html takes the page to write, then the trace: heapreplay --html OUT.html T.zst"},
      {{"--leaks", "--pprof", "t.zst"},
       "--pprof takes the profile to write, then the trace: heapreplay --pprof OUT.pb.gz T.zst"},
      {{"--peak", "--flamegraph", "t.zst"},
       "--flamegraph takes the SVG to write, then the trace: heapreplay --flamegraph OUT.svg "
       "T.zst"},
      {{"--bench", "--plot", "t.zst"},
       "--plot takes the SVG to write, then the trace: heapreplay --bench --plot OUT.svg T.zst"},
      {{"--html", "r.html", "--bench-json", "t.zst"},
       "--bench-json takes the saved --bench --json results, then the trace: heapreplay --html "
       "OUT.html --bench-json SAVED.json T.zst"},
      {{"--base", "old.zst"},
       "--base takes the trace to compare with, then the trace: heapreplay --base OLD.zst T.zst"},
      {{"--html", "r.html"},
       "no trace given (usage: heapreplay [analyses] [output options] TRACE)"},
      {{"--top", "x", "t.zst"}, "--top needs a number, not 'x'"},
      {{"--top", "-1", "t.zst"}, "--top needs a number, not '-1'"},
      {{"t.zst", "--at"}, "--at needs a value (see heapreplay --help)"},
      {{"--metric", "calls", "--folded", "t.zst"}, "--metric is bytes or count, not 'calls'"},
      {{"--metric", "count", "t.zst"},
       "--metric is for --folded, --export folded and --flamegraph"},
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

namespace heaprec::heapreplay {
namespace {

TEST(ReplayOptionsTest, ExportFormatFile) {
  Options o;
  std::string error;
  ASSERT_TRUE(Parse({"--export", "massif", "m.out", "t.zst", "--export=dhat", "d.json", "--export",
                     "folded", "f.txt", "--metric", "count"},
                    &o, &error))
      << error;
  ASSERT_EQ(o.exports.size(), 3u);
  EXPECT_EQ(o.exports[0].format, "massif");
  EXPECT_EQ(o.exports[0].file, "m.out");
  EXPECT_EQ(o.exports[1].format, "dhat");
  EXPECT_EQ(o.exports[1].file, "d.json");
  EXPECT_EQ(o.trace, "t.zst");
  EXPECT_FALSE(o.report_to_stdout);  // a file alone is written alone

  Options bad;
  EXPECT_FALSE(Parse({"--export", "callgrind", "c.out", "t.zst"}, &bad, &error));
  EXPECT_EQ(
      error,
      "--export: unknown format 'callgrind' (the formats: massif, dhat, heaptrack, pprof, folded)");
  Options no_file;
  EXPECT_FALSE(Parse({"--export", "massif", "t.zst"}, &no_file, &error));
  EXPECT_NE(error.find("--export takes a format and the file to write, then the trace"),
            std::string::npos)
      << error;
  for (const char* format : {"massif", "dhat", "pprof", "folded"}) {
    EXPECT_NE(UsageText().find(std::string(format) + "  "), std::string::npos) << format;
  }
}

}  // namespace
}  // namespace heaprec::heapreplay
