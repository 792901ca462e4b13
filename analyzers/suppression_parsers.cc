// Valgrind and LeakSanitizer suppression files (suppression_parsers.h).
#include "analyzers/suppression_parsers.h"

#include <cxxabi.h>

#include <cstdlib>
#include <optional>
#include <utility>

namespace heaprec::analyzers::internal {
namespace {

constexpr std::string_view kSpace = " \t\n\v\f\r";

std::string_view Trim(std::string_view s) {
  const size_t begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(kSpace) - begin + 1);
}

// A line for an error message, quoted and cut to a readable length.
std::string Quote(std::string_view line) {
  constexpr size_t kMax = 60;
  if (line.size() <= kMax) return "\"" + std::string(line) + "\"";
  return "\"" + std::string(line.substr(0, kMax)) + "...\"";
}

// Valgrind's get_nbnc_line: the next line that is neither blank nor a
// comment (its first character past leading blanks is '#'), without leading
// and trailing white space. line() is that line's number (1-based); at the
// end of the text, the number of the last line.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}

  bool Next(std::string_view* line) {
    while (pos_ < text_.size()) {
      size_t end = text_.find('\n', pos_);
      if (end == std::string_view::npos) end = text_.size();
      const std::string_view trimmed = Trim(text_.substr(pos_, end - pos_));
      pos_ = end + 1;
      ++line_;
      if (trimmed.empty() || trimmed[0] == '#') continue;
      *line = trimmed;
      return true;
    }
    return false;
  }

  uint32_t line() const { return line_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  uint32_t line_ = 0;
};

// Valgrind's is_location_line: what memcheck's extra-line reader leaves for
// the frame loop. "src:" is not among them (the quirk of spec E13 s11).
bool IsLocationLine(std::string_view line) {
  return line.starts_with("fun:") || line.starts_with("obj:") || line == "...";
}

// Whether `tool` is one of the comma-separated `tools`.
bool HasTool(std::string_view tools, std::string_view tool) {
  while (true) {
    const size_t comma = tools.find(',');
    if (tools.substr(0, comma) == tool) return true;
    if (comma == std::string_view::npos) return false;
    tools.remove_prefix(comma + 1);
  }
}

// Memcheck's suppression kinds (MC_(is_recognised_suppression)), by what
// their reading needs: one extra line for Param and FishyValue, a
// match-leak-kinds line for Leak, nothing for the others.
enum class MemcheckKind { kLeak, kParam, kFishyValue, kPlain };

std::optional<MemcheckKind> ParseMemcheckKind(std::string_view name) {
  if (name == "Leak") return MemcheckKind::kLeak;
  if (name == "Param") return MemcheckKind::kParam;
  if (name == "FishyValue") return MemcheckKind::kFishyValue;
  for (std::string_view plain :
       {"User",   "CoreMem", "Addr1",  "Addr2",   "Addr4",   "Addr8",  "Addr16",
        "Addr32", "Jump",    "Free",   "Overlap", "Mempool", "Cond",   "Value0",
        "Value1", "Value2",  "Value4", "Value8",  "Value16", "Value32"}) {
    if (name == plain) return MemcheckKind::kPlain;
  }
  return std::nullopt;
}

// Leading decimal digits as VG_(strtoll10) reads a src: line number; 0 if
// none.
uint32_t LeadingNumber(std::string_view s) {
  uint64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') break;
    n = n * 10 + uint64_t(c - '0');
    if (n > UINT32_MAX) return UINT32_MAX;
  }
  return uint32_t(n);
}

std::string DemangleMangled(const std::string& name) {
  if (!name.starts_with("_Z")) return "";
  int status = 0;
  char* demangled = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (demangled == nullptr) return "";
  std::string result(demangled);
  std::free(demangled);
  return result;
}

// A frame line ("fun:", "obj:", "src:", "...") as valgrind's setLocationTy
// reads it, with what matching needs worked out once.
std::optional<FramePattern> ParseFrameLine(std::string_view line) {
  FramePattern f;
  if (line == "...") return f;
  if (line.starts_with("fun:")) {
    f.type = FramePattern::Type::kFun;
  } else if (line.starts_with("obj:")) {
    f.type = FramePattern::Type::kObj;
  } else if (line.starts_with("src:")) {
    f.type = FramePattern::Type::kSrc;
  } else {
    return std::nullopt;
  }
  std::string_view pattern = line.substr(4);
  if (f.type == FramePattern::Type::kSrc) {
    const size_t colon = pattern.find(':');
    if (colon != std::string_view::npos) {
      f.line = LeadingNumber(pattern.substr(colon + 1));
      pattern = pattern.substr(0, colon);
    }
  }
  f.pattern = std::string(pattern);
  f.wildcard = pattern.find_first_of("*?") != std::string_view::npos;
  if (f.type == FramePattern::Type::kFun) {
    f.extended = pattern.find_first_of("():<>,&~[] ") != std::string_view::npos;
    if (!f.wildcard) f.demangled = DemangleMangled(f.pattern);
  } else if (f.type == FramePattern::Type::kSrc) {
    f.extended = pattern.find('/') != std::string_view::npos;
  }
  return f;
}

class ValgrindParser {
 public:
  ValgrindParser(std::string_view text, const std::string& name, uint32_t num_callers)
      : reader_(text), name_(name), num_callers_(num_callers) {}

  bool Run(std::vector<Suppression>* out, std::string* error) {
    std::string_view line;
    for (bool first = true; reader_.Next(&line); first = false) {
      if (line == "{") {
        ReadEntry(out);
      } else {
        const std::string expected =
            first ? "\"{\" (valgrind format) or \"leak:PATTERN\" (LeakSanitizer format)"
                  : "\"{\" or the end of the file";
        Fail("expected " + expected + ", got " + Quote(line));
      }
      if (!error_.empty()) {
        *error = error_;
        return false;
      }
    }
    return true;
  }

 private:
  // The VG_DEEPEST_BACKTRACE of valgrind 3.19: the most frame lines an entry
  // may have (when num_callers allows as many).
  static constexpr uint32_t kMaxFrameLines = 500;

  bool Fail(const std::string& message) {
    error_ = name_ + ":" + std::to_string(reader_.line()) + ": " + message;
    return false;
  }

  // One entry, its "{" read; appends it to *out if it is Memcheck:Leak.
  // Returns false after Fail.
  bool ReadEntry(std::vector<Suppression>* out) {
    std::string_view line;
    if (!reader_.Next(&line)) {
      return Fail("unexpected end of the file: expected a suppression name after \"{\"");
    }
    if (line == "}") return Fail("expected a suppression name after \"{\", got \"}\"");
    Suppression s;
    s.format = SuppressionFormat::kValgrind;
    s.name = std::string(line);
    s.file = name_;
    s.line = reader_.line();
    if (!reader_.Next(&line)) {
      return Fail(
          "unexpected end of the file: expected \"Memcheck:Leak\" or another tool:kind line");
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      return Fail("expected \"Memcheck:Leak\" or another tool:kind line, got " + Quote(line));
    }
    const std::string_view tools = line.substr(0, colon);
    const std::string_view kind_name = line.substr(colon + 1);
    // Valgrind would take "fun" for a tool's name and skip the entry in
    // silence; no tool has such a name, so say what is missing instead.
    if (tools == "fun" || tools == "obj" || tools == "src" || tools == "match-leak-kinds") {
      return Fail("missing the tool:kind line (e.g. \"Memcheck:Leak\") before the frame lines");
    }
    // Memcheck takes core errors too, and the core knows no suppression kind.
    if (HasTool(tools, "core")) {
      return Fail("unknown core suppression kind " + Quote(kind_name));
    }
    if (!HasTool(tools, "Memcheck")) return SkipOtherTool();
    const std::optional<MemcheckKind> kind = ParseMemcheckKind(kind_name);
    if (!kind) return Fail("unknown Memcheck suppression kind " + Quote(kind_name));
    std::optional<std::string_view> pending;
    if (!ReadExtraLine(*kind, &s, &pending) || !ReadFrames(&s, pending)) return false;
    if (*kind == MemcheckKind::kLeak) out->push_back(std::move(s));
    return true;
  }

  // Valgrind skips another tool's entry unread, up to its "}".
  bool SkipOtherTool() {
    std::string_view line;
    while (reader_.Next(&line)) {
      if (line == "}") return true;
    }
    return Fail("unexpected end of the file in a suppression for another tool: missing \"}\"");
  }

  // Memcheck's read_extra_suppression_info: the line after the kind line,
  // for the kinds that have one. A location line read in its place is left
  // in *pending for the frame loop.
  bool ReadExtraLine(MemcheckKind kind, Suppression* s, std::optional<std::string_view>* pending) {
    if (kind == MemcheckKind::kPlain) return true;
    std::string_view line;
    if (!reader_.Next(&line)) {
      if (kind != MemcheckKind::kParam) return true;  // the frame loop reports the end
      return Fail("unexpected end of the file: expected a system call parameter line");
    }
    switch (kind) {
      case MemcheckKind::kParam:
        if (IsLocationLine(line)) {
          return Fail(
              "expected a system call parameter line (e.g. \"write(buf)\") after "
              "\"Memcheck:Param\", got " +
              Quote(line));
        }
        return true;
      case MemcheckKind::kFishyValue: {
        if (IsLocationLine(line)) break;
        const size_t open = line.find('(');
        if (open == std::string_view::npos || line.find(')', open) == std::string_view::npos) {
          return Fail("expected \"function(argument)\" after \"Memcheck:FishyValue\", got " +
                      Quote(line));
        }
        return true;
      }
      case MemcheckKind::kLeak:
        return ReadLeakKinds(line, s, pending);
      case MemcheckKind::kPlain:
        break;
    }
    *pending = line;
    return true;
  }

  // The line after "Memcheck:Leak": match-leak-kinds or the first frame.
  bool ReadLeakKinds(std::string_view line, Suppression* s,
                     std::optional<std::string_view>* pending) {
    constexpr std::string_view kKey = "match-leak-kinds:";
    if (IsLocationLine(line)) {
      *pending = line;
      return true;
    }
    if (line.starts_with(kKey)) {
      std::string set_error;
      if (!LeakKindSet::Parse(Trim(line.substr(kKey.size())), &s->kinds, &set_error)) {
        return Fail("bad match-leak-kinds: " + set_error);
      }
      return true;
    }
    if (line == "}") return Fail("suppression " + Quote(s->name) + " has no frame lines");
    std::string message =
        "expected \"match-leak-kinds:\" or a \"fun:\", \"obj:\" or \"...\" line after "
        "\"Memcheck:Leak\", got " +
        Quote(line);
    if (line.starts_with("src:")) {
      message += " (valgrind takes no \"src:\" line here: put a \"fun:\" or \"obj:\" line first)";
    }
    return Fail(message);
  }

  // The frame lines up to "}", valgrind's main frame-descriptor loop.
  bool ReadFrames(Suppression* s, std::optional<std::string_view> pending) {
    std::string_view line;
    bool closed = false;
    while (true) {
      if (pending) {
        line = *pending;
        pending.reset();
      } else if (!reader_.Next(&line)) {
        return Fail("unexpected end of the file in suppression " + Quote(s->name) +
                    ": missing \"}\"");
      }
      if (line == "}") {
        if (s->frames.empty()) return Fail("suppression " + Quote(s->name) + " has no frame lines");
        closed = true;
        break;
      }
      if (s->frames.size() == kMaxFrameLines) {
        return Fail("suppression " + Quote(s->name) + " has more than 500 frame lines");
      }
      if (!s->frames.empty() && s->frames.size() >= num_callers_) break;
      std::optional<FramePattern> frame = ParseFrameLine(line);
      if (!frame) {
        return Fail("expected \"fun:\", \"obj:\", \"src:\", \"...\" or \"}\", got " + Quote(line));
      }
      s->frames.push_back(std::move(*frame));
    }
    // Lines past num_callers are skipped unread, as valgrind skips them (it
    // accepts the end of the file in their place, too).
    while (!closed && reader_.Next(&line)) closed = line == "}";
    for (const FramePattern& f : s->frames) {
      if (f.type != FramePattern::Type::kAnyFrames) return true;
    }
    return Fail("suppression " + Quote(s->name) + " needs a frame line other than \"...\"");
  }

  LineReader reader_;
  const std::string& name_;
  const uint32_t num_callers_;
  std::string error_;
};

}  // namespace

SuppressionFormat DetectFormat(std::string_view text) {
  LineReader reader(text);
  std::string_view line;
  if (reader.Next(&line) && line.starts_with("leak:")) return SuppressionFormat::kLeakSanitizer;
  return SuppressionFormat::kValgrind;
}

bool ParseValgrind(std::string_view text, const std::string& name, uint32_t num_callers,
                   std::vector<Suppression>* out, std::string* error) {
  return ValgrindParser(text, name, num_callers).Run(out, error);
}

// LSan strips only blanks and tabs in front and blanks, tabs and '\r' at the
// end, and dies on a line holding only other white space; here any white
// space counts as blank. The pattern is the rest of the line after "leak:",
// kept as it is (a blank after the colon is part of it, as for LSan; an
// empty pattern matches every frame, as for LSan).
bool ParseLeakSanitizer(std::string_view text, const std::string& name,
                        std::vector<Suppression>* out, std::string* error) {
  constexpr std::string_view kType = "leak:";
  uint32_t number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    const size_t begin = line.find_first_not_of(" \t");
    line = begin == std::string_view::npos ? std::string_view() : line.substr(begin);
    if (Trim(line).empty() || line[0] == '#') continue;
    line = line.substr(0, line.find_last_not_of(" \t\r") + 1);
    if (!line.starts_with(kType)) {
      *error = name + ":" + std::to_string(number) + ": expected \"leak:PATTERN\", got " +
               Quote(line) + " (a LeakSanitizer file has only leak: lines)";
      return false;
    }
    Suppression s;
    s.format = SuppressionFormat::kLeakSanitizer;
    s.name = std::string(line.substr(kType.size()));
    s.file = name;
    s.line = number;
    out->push_back(std::move(s));
  }
  return true;
}

}  // namespace heaprec::analyzers::internal
