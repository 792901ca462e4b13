// The table-driven command line (command_line.h).
#include "base/command_line.h"

#include <algorithm>
#include <utility>

namespace heaprec::base {
namespace {

std::vector<std::string> Split(const std::string& text, const std::string& separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t at; (at = text.find(separator, start)) != std::string::npos;) {
    parts.push_back(text.substr(start, at - start));
    start = at + separator.size();
  }
  parts.push_back(text.substr(start));
  return parts;
}

Row Option(std::string names, std::string placeholder, std::string help, OptionHandler take) {
  Row row;
  row.names = Split(names, ", ");
  row.placeholder = std::move(placeholder);
  row.help = std::move(help);
  row.take = std::move(take);
  return row;
}

const Row* Find(const CommandLine& line, const std::string& name) {
  for (const Row& row : line.rows) {
    if (row.kind != Row::Kind::kOption) continue;
    if (std::find(row.names.begin(), row.names.end(), name) != row.names.end()) return &row;
  }
  return nullptr;
}

// Edit distance where swapping two neighbouring letters counts one.
size_t Distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t change = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + change});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// "-o, --output PATH", indented under a short name's column if asked.
std::string Label(const CommandLine& line, const Row& row) {
  std::string label = line.align_long_names && row.names.front().rfind("--", 0) == 0 ? "    " : "";
  for (size_t i = 0; i < row.names.size(); ++i) label += (i == 0 ? "" : ", ") + row.names[i];
  if (!row.placeholder.empty()) {
    label += row.value_optional ? "[=" + row.placeholder + "]" : " " + row.placeholder;
  }
  return label;
}

bool Listed(const Row& row) { return row.kind != Row::Kind::kOption || !row.help.empty(); }

}  // namespace

Row Heading(std::string text) {
  Row row;
  row.kind = Row::Kind::kHeading;
  row.text = std::move(text);
  return row;
}

Row Text(std::string text) {
  Row row;
  row.kind = Row::Kind::kText;
  row.text = std::move(text);
  return row;
}

Row Flag(std::string names, std::string help, bool* set) {
  return Flag(std::move(names), std::move(help), [set] { *set = true; });
}

Row Flag(std::string names, std::string help, std::function<void()> on) {
  return Option(std::move(names), "", std::move(help),
                [on = std::move(on)](const std::string&, const std::string&, std::string*) {
                  on();
                  return true;
                });
}

Row FinalFlag(std::string names, std::string help, bool* set) {
  Row row = Flag(std::move(names), std::move(help), set);
  row.ends_parsing = true;
  return row;
}

Row Value(std::string names, std::string placeholder, std::string help, std::string* store) {
  return Option(std::move(names), std::move(placeholder), std::move(help),
                [store](const std::string&, const std::string& value, std::string*) {
                  *store = value;
                  return true;
                });
}

Row Value(std::string names, std::string placeholder, std::string help, OptionHandler take) {
  return Option(std::move(names), std::move(placeholder), std::move(help), std::move(take));
}

Row OptionalValue(std::string names, std::string placeholder, std::string help,
                  OptionHandler take) {
  Row row = Option(std::move(names), std::move(placeholder), std::move(help), std::move(take));
  row.value_optional = true;
  return row;
}

bool Parse(const CommandLine& line, int argc, const char* const* argv, ParseError* error) {
  bool options_ended = false;
  auto fail = [error](ParseError::Kind kind, std::string arg, std::string name,
                      std::string message) {
    *error = {kind, std::move(arg), std::move(name), std::move(message), ""};
    return false;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (!options_ended && arg == "--") {
      options_ended = true;
      continue;
    }
    // "-" alone is a positional (stdin, by convention).
    if (options_ended || arg.size() < 2 || arg[0] != '-') {
      if (line.positionals == Positionals::kEndOptions) options_ended = true;
      std::string message = "unexpected argument '" + arg + "'";
      if (!line.positional || !line.positional(arg, &message)) {
        return fail(ParseError::Kind::kBadPositional, arg, "", message);
      }
      continue;
    }
    // Only long options take "=value"; "-o=x" is an unknown option.
    const size_t equals = arg.rfind("--", 0) == 0 ? arg.find('=') : std::string::npos;
    const std::string name = arg.substr(0, equals);
    const Row* row = Find(line, name);
    if (row == nullptr) {
      const std::string nearest = NearestName(line, name);
      fail(ParseError::Kind::kUnknownOption, arg, name,
           "unknown option '" + arg + "'" +
               (nearest.empty() ? "" : "; did you mean '" + nearest + "'?"));
      error->nearest = nearest;
      return false;
    }
    if (row->placeholder.empty() && equals != std::string::npos) {
      return fail(ParseError::Kind::kBadValue, arg, name, name + " takes no value ('" + arg + "')");
    }
    std::string value;
    if (equals != std::string::npos) {
      value = arg.substr(equals + 1);
    } else if (!row->placeholder.empty() && !row->value_optional) {
      if (i + 1 >= argc) {
        return fail(ParseError::Kind::kMissingValue, arg, name, name + " needs a value");
      }
      value = argv[++i];
    }
    std::string message;
    if (!row->take(name, value, &message)) {
      return fail(ParseError::Kind::kBadValue, arg, name, message);
    }
    if (row->ends_parsing) return true;
  }
  return true;
}

std::string Usage(const CommandLine& line) {
  size_t column = line.min_help_column;
  for (const Row& row : line.rows) {
    if (row.kind == Row::Kind::kOption && Listed(row)) {
      column = std::max(column, 2 + Label(line, row).size() + 2);
    }
  }
  std::string out = line.usage + "\n";
  for (const Row& row : line.rows) {
    if (!Listed(row)) continue;
    if (row.kind == Row::Kind::kHeading) out += "\n";
    if (row.kind != Row::Kind::kOption) {
      out += row.text + "\n";
      continue;
    }
    const std::string label = "  " + Label(line, row);
    const std::vector<std::string> help = Split(row.help, "\n");
    out += label + std::string(column - label.size(), ' ') + help[0] + "\n";
    for (size_t i = 1; i < help.size(); ++i) out += std::string(column, ' ') + help[i] + "\n";
  }
  return out;
}

std::string NearestName(const CommandLine& line, std::string_view written) {
  const size_t letters = written.size() - std::min(written.find_first_not_of('-'), written.size());
  if (letters < 2) return "";
  // Close enough: at most a third of the name wrong, and not all its letters.
  const size_t most = std::min(std::max<size_t>(1, written.size() / 3), letters - 1);
  std::string nearest, prefixed;
  size_t best = most + 1;
  for (const Row& row : line.rows) {
    if (row.kind != Row::Kind::kOption) continue;
    for (const std::string& name : row.names) {
      const size_t d = Distance(written, name);
      if (d < best) {
        best = d;
        nearest = name;
      }
      // A beginning of a name ("--temp" for "--temporaries"): the shortest
      // such name, from three letters on (fewer begin too many names).
      if (letters >= 3 && name.size() > written.size() && name.rfind(written, 0) == 0 &&
          (prefixed.empty() || name.size() < prefixed.size())) {
        prefixed = name;
      }
    }
  }
  // One letter off is a typo; further off, a name begun is the likelier one
  // ("--temp": --temporaries, not --top).
  return best <= 1 || prefixed.empty() ? nearest : prefixed;
}

}  // namespace heaprec::base
