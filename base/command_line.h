// A command line as one table: the rows name each option, its value's
// placeholder, its help and what to do with the value, between headings and
// notes. Parse reads argv with the table and Usage prints the help text from
// the same table, so the help lists exactly what is accepted, in its order.
//   --name=value and --name value; short options (-o value); "--" ends the
//   options; positionals either mix with options (heapreplay TRACE) or end
//   them (heaprec PROGRAM ARGS...).
// Errors are one line (ParseError); an unknown option's names the nearest
// option ("unknown option '--leak-kind'; did you mean '--leak-kinds'?").
// Tools only (heaprec, heapreplay): allocates, std only; never used by the
// preloaded library. Not thread-safe; one thread builds and reads a table.
#ifndef HEAPREC_BASE_COMMAND_LINE_H_
#define HEAPREC_BASE_COMMAND_LINE_H_

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace heaprec::base {

// Takes an option's value ("" for a flag). `name` is the option as written
// ("-o" or "--output"). False + one line in *error rejects the value.
using OptionHandler =
    std::function<bool(const std::string& name, const std::string& value, std::string* error)>;

// Takes a positional argument; false + one line in *error rejects it.
using PositionalHandler = std::function<bool(const std::string& arg, std::string* error)>;

// One row of the table. Made by the functions below.
struct Row {
  enum class Kind { kHeading, kText, kOption };
  Kind kind = Kind::kOption;
  std::string text;                // kHeading, kText: printed as is (lines split by '\n')
  std::vector<std::string> names;  // kOption: "-o", "--output"
  std::string placeholder;         // the value's name in the help ("PATH"); empty: a flag
  std::string help;                // lines split by '\n'; empty: accepted, not listed
  OptionHandler take;
  bool ends_parsing = false;    // parsing stops here with success (--help, --version)
  bool value_optional = false;  // the value only as --name=value; --name alone gives ""
};

// A section's heading: a blank line, then `text`.
Row Heading(std::string text);
// A note between options, at the left margin.
Row Text(std::string text);
// `names` is how the help writes them: "-o, --output", "--leaks".
Row Flag(std::string names, std::string help, bool* set);
Row Flag(std::string names, std::string help, std::function<void()> on);
// Sets *set and ends parsing successfully: what follows is not read.
Row FinalFlag(std::string names, std::string help, bool* set);
Row Value(std::string names, std::string placeholder, std::string help, std::string* store);
Row Value(std::string names, std::string placeholder, std::string help, OptionHandler take);
// An option whose value is optional: "--name=value", or "--name" alone (the
// handler gets ""); the next argument is never taken as its value. The help
// writes it "--name[=VALUE]".
Row OptionalValue(std::string names, std::string placeholder, std::string help, OptionHandler take);

enum class Positionals {
  kMixed,       // options and positionals in any order (heapreplay TRACE)
  kEndOptions,  // the first positional ends the options; it and all after it
                // are positionals (heaprec PROGRAM ARGS...)
};

struct CommandLine {
  std::string usage;  // the help's first line: "usage: heaprec [options] [--] PROGRAM [ARGS...]"
  std::vector<Row> rows;
  Positionals positionals = Positionals::kMixed;
  PositionalHandler positional;  // null: any positional is an error
  // Layout of Usage(): help starts at this column at least (else two spaces
  // after the longest option); with align_long_names, options without a short
  // name are indented as if they had one ("  -o, --output" over "      --no-follow").
  size_t min_help_column = 0;
  bool align_long_names = false;
};

// Where and why parsing stopped. `message` is one line: "unknown option
// '--bogus'" (with "; did you mean '--NAME'?" when one is near), "--at needs
// a value", "--leaks takes no value ('--leaks=1')", or what the handler said.
struct ParseError {
  enum class Kind { kUnknownOption, kMissingValue, kBadValue, kBadPositional };
  Kind kind = Kind::kUnknownOption;
  std::string arg;   // the argument as written ("--depth=x", "--bogus")
  std::string name;  // the option's name as written ("-d", "--depth"); empty for a positional
  std::string message;
  // kUnknownOption: the table's closest name (NearestName), also in message.
  std::string nearest;
};

// Reads argv[1..argc) in order, calling each row's handler as its option
// comes. False + *error at the first argument that fails.
bool Parse(const CommandLine& line, int argc, const char* const* argv, ParseError* error);

// The help text: the usage line, then the rows in order; option rows as
// "  -o, --output PATH  help", later help lines under the first.
std::string Usage(const CommandLine& line);

// The option name in the table closest to `written`, or "" when nothing is
// close enough to suggest: one edit away (a letter added, dropped or
// changed, or two swapped), else the shortest name that `written` begins
// (from three letters: "--temp" for "--temporaries"), else the closest
// within a third of the name's length.
std::string NearestName(const CommandLine& line, std::string_view written);

}  // namespace heaprec::base

#endif  // HEAPREC_BASE_COMMAND_LINE_H_
