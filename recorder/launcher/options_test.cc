// heaprec's command line: what is accepted, and one clear line for the rest.
#include "recorder/launcher/options.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace heaprec::recorder::launcher {
namespace {

bool Parse(std::initializer_list<const char*> args, Options* o, std::string* error) {
  std::vector<char*> argv;
  for (const char* a : args) argv.push_back(const_cast<char*>(a));
  return ParseOptions(static_cast<int>(argv.size()), argv.data(), o, error);
}

TEST(OptionsTest, ProgramAndArgumentsAfterOptions) {
  Options o;
  std::string error;
  ASSERT_TRUE(
      Parse({"heaprec", "-o", "t.zst", "--depth", "12", "--no-follow", "-q", "./app", "-o", "x"},
            &o, &error))
      << error;
  EXPECT_EQ(o.output, "t.zst");
  EXPECT_EQ(o.depth, 12u);
  EXPECT_FALSE(o.follow);
  EXPECT_TRUE(o.quiet);
  EXPECT_EQ(o.command, (std::vector<std::string>{"./app", "-o", "x"}));
}

TEST(OptionsTest, SampleRateSpellings) {
  for (const auto& [text, bytes] :
       std::vector<std::pair<const char*, uint64_t>>{{"0", 0},
                                                     {"524288", 524288},
                                                     {"512K", 524288},
                                                     {"512k", 524288},
                                                     {"512KiB", 524288},
                                                     {"1M", 1048576},
                                                     {"1MiB", 1048576},
                                                     {"2G", 2147483648}}) {
    Options o;
    std::string error;
    ASSERT_TRUE(Parse({"heaprec", "--sample-rate", text, "./app"}, &o, &error)) << text << error;
    EXPECT_EQ(o.sample_rate, bytes) << text;
  }
  for (const char* bad : {"", "K", "1.5M", "-1", "12KB", "1T"}) {
    Options o;
    std::string error;
    EXPECT_FALSE(Parse({"heaprec", "--sample-rate", bad, "./app"}, &o, &error)) << bad;
    EXPECT_NE(error.find("--sample-rate takes bytes"), std::string::npos) << error;
  }
  Options o;
  std::string error;
  EXPECT_FALSE(
      Parse({"heaprec", "--sample-rate", "1M", "--scan-signal", "10", "./app"}, &o, &error));
  EXPECT_EQ(error,
            "--scan-signal needs every allocation: a sample (--sample-rate) cannot tell lost "
            "blocks from reachable ones");
}

TEST(OptionsTest, DoubleDashAndInlineValues) {
  Options o;
  std::string error;
  ASSERT_TRUE(
      Parse({"heaprec", "--output=%n.%p.zst", "--mark-signal=10", "--free-stacks", "--", "-weird"},
            &o, &error));
  EXPECT_EQ(o.output, "%n.%p.zst");
  EXPECT_TRUE(o.free_stacks);
  EXPECT_EQ(o.mark_signal, 10);
  EXPECT_EQ(o.command, (std::vector<std::string>{"-weird"}));
}

TEST(OptionsTest, HelpAndVersionNeedNoProgram) {
  Options o;
  std::string error;
  ASSERT_TRUE(Parse({"heaprec", "--help"}, &o, &error));
  EXPECT_TRUE(o.help);
  Options v;
  ASSERT_TRUE(Parse({"heaprec", "--version"}, &v, &error));
  EXPECT_TRUE(v.version);
}

TEST(OptionsTest, RecordingAPhase) {
  Options o;
  std::string error;
  ASSERT_TRUE(Parse({"heaprec", "--start-paused", "--switch-signal", "10", "./app"}, &o, &error))
      << error;
  EXPECT_TRUE(o.start_paused);
  EXPECT_EQ(o.switch_signal, 10);
  EXPECT_EQ(o.control, Options::Control::kNone);
  EXPECT_EQ(o.command, (std::vector<std::string>{"./app"}));
  Options d;
  ASSERT_TRUE(Parse({"heaprec", "./app"}, &d, &error));
  EXPECT_FALSE(d.start_paused);
  EXPECT_EQ(d.switch_signal, 0);
  EXPECT_FALSE(Parse({"heaprec", "--switch-signal", "65", "./app"}, &d, &error));
  EXPECT_EQ(error, "--switch-signal takes a signal number from 0 to 64, not '65'");
}

TEST(OptionsTest, StartAndStopTakeAPidAndNoProgram) {
  Options start;
  std::string error;
  ASSERT_TRUE(Parse({"heaprec", "--start", "4242"}, &start, &error)) << error;
  EXPECT_EQ(start.control, Options::Control::kStart);
  EXPECT_EQ(start.control_pid, 4242);
  Options stop;
  ASSERT_TRUE(Parse({"heaprec", "--stop=17"}, &stop, &error)) << error;
  EXPECT_EQ(stop.control, Options::Control::kStop);
  EXPECT_EQ(stop.control_pid, 17);

  Options o;
  EXPECT_FALSE(Parse({"heaprec", "--start", "0"}, &o, &error));
  EXPECT_EQ(error, "--start takes a process id, not '0'");
  Options p;
  EXPECT_FALSE(Parse({"heaprec", "--stop", "12x"}, &p, &error));
  EXPECT_EQ(error, "--stop takes a process id, not '12x'");
  Options both;
  EXPECT_FALSE(Parse({"heaprec", "--start", "1", "--stop", "1"}, &both, &error));
  EXPECT_EQ(error, "give one of --start PID and --stop PID");
  Options with_program;
  EXPECT_FALSE(Parse({"heaprec", "--stop", "5", "./app"}, &with_program, &error));
  EXPECT_EQ(error, "--stop PID switches a process heaprec already records: it runs no program");
  Options compare;
  EXPECT_FALSE(
      Parse({"heaprec", "--compare-allocators", "--start-paused", "./app"}, &compare, &error));
  EXPECT_EQ(error,
            "--start-paused is for recording: --compare-allocators runs the program without "
            "recording it");
}

TEST(OptionsTest, UsageListsTheOptions) {
  const std::string usage = UsageText();
  EXPECT_EQ(usage.rfind("usage: heaprec [options] [--] PROGRAM [ARGS...]\n", 0), 0u);
  for (const char* listed :
       {"  -o, --output PATH  ", "      --no-follow[=PATTERN]  ", "      --follow[=PATTERN]  ",
        "      --version  ", "      --start-paused  ", "      --start PID  ", "      --stop PID  ",
        "      --switch-signal N  "}) {
    EXPECT_NE(usage.find(listed), std::string::npos) << listed;
  }
}

// --follow=/--no-follow= collect patterns; --no-follow alone keeps its
// meaning; neither takes the next argument as its value.
TEST(OptionsTest, FollowPatterns) {
  Options o;
  std::string error;
  ASSERT_TRUE(Parse({"heaprec", "--no-follow=sh,env", "--no-follow=readlink", "--follow=py*",
                     "--follow", "python3", "p.py"},
                    &o, &error))
      << error;
  EXPECT_TRUE(o.follow);
  EXPECT_EQ(o.follow_skip, (std::vector<std::string>{"sh,env", "readlink"}));
  EXPECT_EQ(o.follow_only, (std::vector<std::string>{"py*"}));
  EXPECT_EQ(o.command, (std::vector<std::string>{"python3", "p.py"}));
  Options bare;
  ASSERT_TRUE(Parse({"heaprec", "--no-follow", "./app"}, &bare, &error)) << error;
  EXPECT_FALSE(bare.follow);
  EXPECT_TRUE(bare.follow_skip.empty());
  EXPECT_EQ(bare.command, (std::vector<std::string>{"./app"}));
}

TEST(OptionsTest, CompareAllocators) {
  Options o;
  std::string error;
  ASSERT_TRUE(Parse({"heaprec", "--compare-allocators", "./app", "a"}, &o, &error)) << error;
  EXPECT_TRUE(o.compare_allocators);
  EXPECT_EQ(o.rounds, 10u);
  EXPECT_EQ(o.allocators, "glibc,tcmalloc,jemalloc,mimalloc");
  EXPECT_FALSE(o.keep_output);
  EXPECT_FALSE(o.json);
  EXPECT_EQ(o.command, (std::vector<std::string>{"./app", "a"}));
  Options p;
  ASSERT_TRUE(Parse({"heaprec", "--compare-allocators", "--rounds=32", "--allocators",
                     "glibc,/opt/libx.so", "--keep-output", "--json", "-q", "./app"},
                    &p, &error))
      << error;
  EXPECT_EQ(p.rounds, 32u);
  EXPECT_EQ(p.allocators, "glibc,/opt/libx.so");
  EXPECT_TRUE(p.keep_output);
  EXPECT_TRUE(p.json);
  EXPECT_TRUE(p.quiet);
  EXPECT_NE(UsageText().find("--compare-allocators"), std::string::npos);
}

TEST(OptionsTest, ErrorsAreOneLine) {
  const std::vector<std::pair<std::vector<const char*>, std::string>> cases = {
      {{"heaprec"}, "no program to run (usage: heaprec [options] [--] PROGRAM [ARGS...])"},
      {{"heaprec", "--bogus", "x"}, "unknown option '--bogus' (see heaprec --help)"},
      {{"heaprec", "--quiet=1", "x"}, "--quiet takes no value ('--quiet=1')"},
      {{"heaprec", "--leak-chek", "x"},
       "unknown option '--leak-chek'; did you mean '--leak-check'?"},
      {{"heaprec", "--free-stack", "x"},
       "unknown option '--free-stack'; did you mean '--free-stacks'?"},
      {{"heaprec", "--addr", "x"}, "unknown option '--addr'; did you mean '--addresses'?"},
      {{"heaprec", "-o=t.zst", "x"}, "unknown option '-o=t.zst' (see heaprec --help)"},
      {{"heaprec", "--output", ""}, "option --output needs a non-empty path"},
      {{"heaprec", "--depth", "0", "x"}, "--depth takes a number from 1 to 256, not '0'"},
      {{"heaprec", "--depth", "abc", "x"}, "--depth takes a number from 1 to 256, not 'abc'"},
      {{"heaprec", "-o"}, "option -o needs a value (see heaprec --help)"},
      {{"heaprec", "--mark-signal", "99", "x"},
       "--mark-signal takes a signal number from 0 to 64, not '99'"},
      {{"heaprec", "--no-follow", "--no-follow=sh", "x"},
       "--no-follow alone traces the first process only: it does not mix with "
       "--follow=PATTERN or --no-follow=PATTERN"},
      {{"heaprec", "--rounds", "3", "x"}, "--rounds goes with --compare-allocators"},
      {{"heaprec", "--json", "x"}, "--json goes with --compare-allocators"},
      {{"heaprec", "--keep-output", "x"}, "--keep-output goes with --compare-allocators"},
      {{"heaprec", "--allocators", "glibc", "x"}, "--allocators goes with --compare-allocators"},
      {{"heaprec", "--compare-allocators", "--rounds", "0", "x"},
       "--rounds takes a number from 1 to 1000, not '0'"},
      {{"heaprec", "--compare-allocators", "-o", "t.zst", "x"},
       "-o is for recording: --compare-allocators runs the program without recording it"},
  };
  for (const auto& [args, message] : cases) {
    std::vector<char*> argv;
    for (const char* a : args) argv.push_back(const_cast<char*>(a));
    Options o;
    std::string error;
    EXPECT_FALSE(ParseOptions(static_cast<int>(argv.size()), argv.data(), &o, &error));
    EXPECT_EQ(error, message);
    EXPECT_EQ(error.find('\n'), std::string::npos);
  }
}

TEST(OptionsTest, AttachToAPidForADuration) {
  Options o;
  std::string error;
  ASSERT_TRUE(Parse({"heaprec", "-p", "4242", "--duration", "1.5s", "-o", "t.zst"}, &o, &error))
      << error;
  EXPECT_EQ(o.attach_pid, 4242);
  EXPECT_EQ(o.duration_ms, 1500u);
  EXPECT_TRUE(o.command.empty());
  Options bad;
  EXPECT_FALSE(Parse({"heaprec", "-p", "4242", "./app"}, &bad, &error));
  EXPECT_EQ(error, "-p records a running process: give no PROGRAM too ('./app')");
  Options not_pid;
  EXPECT_FALSE(Parse({"heaprec", "-p", "app"}, &not_pid, &error));
  EXPECT_EQ(error, "-p takes a process id, not 'app'");
  Options alone;
  EXPECT_FALSE(Parse({"heaprec", "--duration", "5s", "./app"}, &alone, &error));
  EXPECT_EQ(error, "--duration goes with -p PID (a program started by heaprec records to its end)");
}

TEST(OptionsTest, Durations) {
  uint64_t ms = 0;
  EXPECT_TRUE(ParseDuration("60", &ms));
  EXPECT_EQ(ms, 60000u);
  EXPECT_TRUE(ParseDuration("500ms", &ms));
  EXPECT_EQ(ms, 500u);
  EXPECT_TRUE(ParseDuration("2m", &ms));
  EXPECT_EQ(ms, 120000u);
  EXPECT_TRUE(ParseDuration("1h", &ms));
  EXPECT_EQ(ms, 3600000u);
  for (const char* bad : {"", "s", "-1s", "0", "5 s", "5x", "1e20"}) {
    EXPECT_FALSE(ParseDuration(bad, &ms)) << bad;
  }
}

}  // namespace
}  // namespace heaprec::recorder::launcher
