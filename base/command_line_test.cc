// The table-driven command line: both spellings of a value, short names,
// "--", the two positional modes, one-line errors, the help text laid out
// from the same table, and the nearest name for an unknown option.
#include "base/command_line.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace heaprec::base {
namespace {

struct Parsed {
  bool quiet = false, help = false, follow = true;
  std::string output, at, hidden;
  unsigned depth = 0;
  std::vector<std::string> positionals;
};

CommandLine Table(Parsed* p, Positionals mode) {
  CommandLine line;
  line.usage = "usage: tool [options] ARGS";
  line.positionals = mode;
  line.positional = [p](const std::string& arg, std::string* error) {
    if (arg == "bad") {
      *error = "bad positional";
      return false;
    }
    p->positionals.push_back(arg);
    return true;
  };
  line.rows = {
      Heading("Options:"),
      Value("-o, --output", "PATH", "where to write", &p->output),
      Value("-d, --depth", "N", "how deep\nsecond line",
            [p](const std::string& name, const std::string& v, std::string* error) {
              if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) {
                *error = name + " takes a number, not '" + v + "'";
                return false;
              }
              p->depth = static_cast<unsigned>(std::stoul(v));
              return true;
            }),
      Flag("--no-follow", "stay", [p] { p->follow = false; }),
      Text("A note between options."),
      Flag("-q, --quiet", "say less", &p->quiet),
      Value("--at", "MOMENT", "", &p->at),  // not listed
      FinalFlag("-h, --help", "this text", &p->help),
      Heading("Then: more."),
  };
  return line;
}

std::vector<const char*> Argv(std::vector<const char*> args) {
  args.insert(args.begin(), "tool");
  return args;
}

bool Parse(Parsed* p, Positionals mode, std::vector<const char*> args, ParseError* error) {
  const std::vector<const char*> argv = Argv(std::move(args));
  return Parse(Table(p, mode), static_cast<int>(argv.size()), argv.data(), error);
}

TEST(CommandLineTest, ValuesInBothSpellingsShortNamesAndFlags) {
  Parsed p;
  ParseError e;
  ASSERT_TRUE(Parse(&p, Positionals::kMixed,
                    {"-o", "a.zst", "--depth=12", "x", "-q", "--no-follow", "--at", "-y"}, &e))
      << e.message;
  EXPECT_EQ(p.output, "a.zst");
  EXPECT_EQ(p.depth, 12u);
  EXPECT_TRUE(p.quiet);
  EXPECT_FALSE(p.follow);
  EXPECT_EQ(p.at, "-y");  // a value is taken as it is, dash or not
  EXPECT_EQ(p.positionals, (std::vector<std::string>{"x"}));
  Parsed q;
  ASSERT_TRUE(Parse(&q, Positionals::kMixed, {"--output=", "--output=b=c"}, &e));
  EXPECT_EQ(q.output, "b=c");
}

TEST(CommandLineTest, PositionalModes) {
  Parsed mixed;
  ParseError e;
  ASSERT_TRUE(Parse(&mixed, Positionals::kMixed, {"a", "-q", "b", "-", ""}, &e)) << e.message;
  EXPECT_TRUE(mixed.quiet);
  EXPECT_EQ(mixed.positionals, (std::vector<std::string>{"a", "b", "-", ""}));
  Parsed ended;
  ASSERT_TRUE(Parse(&ended, Positionals::kEndOptions, {"-q", "./app", "-o", "x", "--"}, &e));
  EXPECT_TRUE(ended.quiet);
  EXPECT_EQ(ended.output, "");
  EXPECT_EQ(ended.positionals, (std::vector<std::string>{"./app", "-o", "x", "--"}));
  for (Positionals mode : {Positionals::kMixed, Positionals::kEndOptions}) {
    Parsed dashed;
    ASSERT_TRUE(Parse(&dashed, mode, {"-q", "--", "-weird", "--"}, &e));
    EXPECT_EQ(dashed.positionals, (std::vector<std::string>{"-weird", "--"}));
  }
}

TEST(CommandLineTest, FinalFlagEndsParsing) {
  Parsed p;
  ParseError e;
  ASSERT_TRUE(Parse(&p, Positionals::kMixed, {"--help", "--bogus", "bad"}, &e));
  EXPECT_TRUE(p.help);
  EXPECT_TRUE(p.positionals.empty());
}

TEST(CommandLineTest, ErrorsAreOneLineAtTheFirstBadArgument) {
  using Kind = ParseError::Kind;
  const struct {
    std::vector<const char*> args;
    Kind kind;
    std::string name, message;
  } cases[] = {
      {{"--bogus", "--depth=x"}, Kind::kUnknownOption, "--bogus", "unknown option '--bogus'"},
      {{"-o=x"}, Kind::kUnknownOption, "-o=x", "unknown option '-o=x'"},
      {{"--quiet=1"}, Kind::kBadValue, "--quiet", "--quiet takes no value ('--quiet=1')"},
      {{"--otput=x"},
       Kind::kUnknownOption,
       "--otput",
       "unknown option '--otput=x'; did you mean '--output'?"},
      {{"a", "-o"}, Kind::kMissingValue, "-o", "-o needs a value"},
      {{"--at"}, Kind::kMissingValue, "--at", "--at needs a value"},
      {{"-d", "x", "--bogus"}, Kind::kBadValue, "-d", "-d takes a number, not 'x'"},
      {{"--depth=", "--bogus"}, Kind::kBadValue, "--depth", "--depth takes a number, not ''"},
      {{"bad", "--bogus"}, Kind::kBadPositional, "", "bad positional"},
  };
  for (const auto& c : cases) {
    Parsed p;
    ParseError e;
    EXPECT_FALSE(Parse(&p, Positionals::kMixed, c.args, &e)) << c.message;
    EXPECT_EQ(e.kind, c.kind) << c.message;
    EXPECT_EQ(e.name, c.name);
    EXPECT_EQ(e.message, c.message);
  }
  // No positional handler: any positional is an error.
  Parsed p;
  CommandLine line = Table(&p, Positionals::kMixed);
  line.positional = nullptr;
  const std::vector<const char*> argv = Argv({"-q", "x"});
  ParseError e;
  EXPECT_FALSE(Parse(line, static_cast<int>(argv.size()), argv.data(), &e));
  EXPECT_EQ(e.kind, ParseError::Kind::kBadPositional);
  EXPECT_EQ(e.message, "unexpected argument 'x'");
}

TEST(CommandLineTest, UsageIsLaidOutFromTheTable) {
  Parsed p;
  CommandLine line = Table(&p, Positionals::kMixed);
  EXPECT_EQ(Usage(line),
            "usage: tool [options] ARGS\n"
            "\n"
            "Options:\n"
            "  -o, --output PATH  where to write\n"
            "  -d, --depth N      how deep\n"
            "                     second line\n"
            "  --no-follow        stay\n"
            "A note between options.\n"
            "  -q, --quiet        say less\n"
            "  -h, --help         this text\n"
            "\n"
            "Then: more.\n");
  line.align_long_names = true;
  line.min_help_column = 24;
  const std::string aligned = Usage(line);
  for (const char* row : {"  -o, --output PATH     where to write\n",
                          "  -d, --depth N         how deep\n"
                          "                        second line\n",
                          "      --no-follow       stay\n"}) {
    EXPECT_NE(aligned.find(row), std::string::npos) << row << aligned;
  }
}

TEST(CommandLineTest, NearestNameForAnUnknownOption) {
  Parsed p;
  const CommandLine line = Table(&p, Positionals::kMixed);
  EXPECT_EQ(NearestName(line, "--otput"), "--output");
  EXPECT_EQ(NearestName(line, "--dpeth"), "--depth");  // a swap counts one
  EXPECT_EQ(NearestName(line, "--quite"), "--quiet");
  EXPECT_EQ(NearestName(line, "--at"), "--at");  // hidden options are accepted too
  EXPECT_EQ(NearestName(line, "--bogus"), "");
  EXPECT_EQ(NearestName(line, "-x"), "");  // one letter: anything would be as near
  EXPECT_EQ(NearestName(line, "--"), "");
  // The beginning of a name, from three letters on: the shortest it begins.
  EXPECT_EQ(NearestName(line, "--no-f"), "--no-follow");
  EXPECT_EQ(NearestName(line, "--out"), "--output");
  EXPECT_EQ(NearestName(line, "--qu"), "");  // two letters begin too much
  ParseError e;
  EXPECT_FALSE(Parse(&p, Positionals::kMixed, {"--no-folow"}, &e));
  EXPECT_EQ(e.nearest, "--no-follow");
  EXPECT_EQ(e.message, "unknown option '--no-folow'; did you mean '--no-follow'?");
}

}  // namespace
// --leak-check[=full]: a value only after '=', the next argument never.
TEST(CommandLineTest, OptionalValues) {
  std::vector<std::string> seen, positionals;
  CommandLine line;
  line.usage = "usage: t";
  line.positionals = Positionals::kEndOptions;
  line.positional = [&](const std::string& arg, std::string*) {
    positionals.push_back(arg);
    return true;
  };
  line.rows = {OptionalValue("--leak-check", "MODE", "summary or full (alone: full)",
                             [&](const std::string&, const std::string& v, std::string*) {
                               seen.push_back(v);
                               return true;
                             })};
  const char* argv[] = {"t", "--leak-check", "--leak-check=summary", "prog", "--leak-check"};
  ParseError e;
  ASSERT_TRUE(Parse(line, 5, argv, &e)) << e.message;
  EXPECT_EQ(seen, (std::vector<std::string>{"", "summary"}));
  EXPECT_EQ(positionals, (std::vector<std::string>{"prog", "--leak-check"}));
  EXPECT_NE(Usage(line).find("  --leak-check[=MODE]  summary or full (alone: full)"),
            std::string::npos)
      << Usage(line);
}

}  // namespace heaprec::base
