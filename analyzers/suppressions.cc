// Leak kind sets, reading suppression files and matching stacks against them
// (suppressions.h); the parsers are in suppression_parsers.cc.
#include "analyzers/suppressions.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "analyzers/suppression_parsers.h"

namespace heaprec::analyzers {
namespace {

constexpr std::string_view kKindNames[] = {"definite", "indirect", "possible", "reachable"};

// Whole-sequence wildcard matching with valgrind's VG_(generic_match)
// meaning: a star matches any run of input items (none included), a query
// any one item; with `prefix`, the pattern need only match a prefix of the
// input. Backtracking to the last star only is enough when wildcards stand
// for whole items, and keeps the cost at O(pattern x input).
template <typename IsStar, typename IsQuery, typename Equal>
bool WildcardMatch(size_t n_pattern, size_t n_input, bool prefix, IsStar is_star, IsQuery is_query,
                   Equal equal) {
  constexpr size_t kNone = SIZE_MAX;
  size_t p = 0, i = 0, star = kNone, star_input = 0;
  while (i < n_input) {
    if (p < n_pattern && is_star(p)) {
      star = p++;
      star_input = i;
    } else if (p == n_pattern && prefix) {
      return true;
    } else if (p < n_pattern && (is_query(p) || equal(p, i))) {
      ++p;
      ++i;
    } else if (star != kNone) {
      p = star + 1;
      i = ++star_input;
    } else {
      return false;
    }
  }
  while (p < n_pattern && is_star(p)) ++p;
  return p == n_pattern;
}

// VG_(string_match): the whole name, '*' and '?' wildcards.
bool GlobMatch(std::string_view pattern, std::string_view name) {
  return WildcardMatch(
      pattern.size(), name.size(), /*prefix=*/false, [&](size_t p) { return pattern[p] == '*'; },
      [&](size_t p) { return pattern[p] == '?'; },
      [&](size_t p, size_t i) { return pattern[p] == name[i]; });
}

// Valgrind's name for what is not known.
std::string_view OrUnknown(const std::string& name) {
  return name.empty() ? std::string_view("???") : std::string_view(name);
}

bool FunMatches(const FramePattern& f, const LeakFrame& frame, bool strict) {
  if (!frame.linkage.empty()) {
    if (GlobMatch(f.pattern, frame.linkage)) return true;
    return !strict && f.extended && GlobMatch(f.pattern, frame.function);
  }
  if (GlobMatch(f.pattern, OrUnknown(frame.function))) return true;
  return !f.demangled.empty() && f.demangled == frame.function;
}

// src:FILE against the file's name, or for an extended pattern against the
// full path and each tail of it after a '/' (suppressions.h says why).
bool SrcMatches(const FramePattern& f, const LeakFrame& frame, bool strict) {
  if (frame.file.empty()) return false;
  if (f.line != 0 && f.line != frame.line) return false;
  std::string_view path = frame.file;
  if (!f.extended) {
    const size_t slash = path.rfind('/');
    return GlobMatch(f.pattern, slash == std::string_view::npos ? path : path.substr(slash + 1));
  }
  if (strict) return false;
  while (true) {
    if (GlobMatch(f.pattern, path)) return true;
    const size_t slash = path.find('/');
    if (slash == std::string_view::npos) return false;
    path.remove_prefix(slash + 1);
  }
}

bool FrameMatches(const FramePattern& f, const LeakFrame& frame, bool strict) {
  switch (f.type) {
    case FramePattern::Type::kFun:
      return FunMatches(f, frame, strict);
    case FramePattern::Type::kObj:
      return GlobMatch(f.pattern, OrUnknown(frame.module));
    case FramePattern::Type::kSrc:
      return SrcMatches(f, frame, strict);
    case FramePattern::Type::kAnyFrames:
      break;
  }
  return false;
}

// compiler-rt's TemplateMatch: literal runs between '*'s are found as
// substrings, leftmost first, in order; a leading '^' anchors the first one
// at the start; '$' ends the match, successfully if the name is used up or a
// '*' came just before (what follows a '$' is not looked at). An empty name
// never matches; an empty template matches any other name.
bool TemplateMatch(std::string_view templ, std::string_view str) {
  if (str.empty()) return false;
  bool anchored = false;
  if (templ.starts_with('^')) {
    anchored = true;
    templ.remove_prefix(1);
  }
  bool asterisk = false;
  while (!templ.empty()) {
    if (templ[0] == '*') {
      templ.remove_prefix(1);
      anchored = false;
      asterisk = true;
      continue;
    }
    if (templ[0] == '$') return str.empty() || asterisk;
    if (str.empty()) return false;
    const size_t run_end = std::min(templ.find_first_of("*$"), templ.size());
    const size_t found = str.find(templ.substr(0, run_end));
    if (found == std::string_view::npos || (anchored && found != 0)) return false;
    str.remove_prefix(found + run_end);
    templ.remove_prefix(run_end);
    anchored = false;
    asterisk = false;
  }
  return true;
}

}  // namespace

std::string_view LeakKindName(LeakKind kind) {
  return kind == LeakKind::kUnknown ? "unknown" : kKindNames[static_cast<size_t>(kind) - 1];
}

bool LeakKindSet::Parse(std::string_view text, LeakKindSet* set, std::string* error) {
  LeakKindSet result;
  bool all = false, none = false, any_word = false;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view word = text.substr(0, comma);
    text.remove_prefix(comma == std::string_view::npos ? text.size() : comma + 1);
    if (word.empty()) continue;  // strtok_r skips empty items
    any_word = true;
    if (word == "all") {
      all = true;
    } else if (word == "none") {
      none = true;
    } else {
      const auto* found = std::find(std::begin(kKindNames), std::end(kKindNames), word);
      if (found == std::end(kKindNames)) {
        *error = "unknown leak kind \"" + std::string(word) +
                 "\" (expected a comma-separated list of definite, indirect, possible, "
                 "reachable, or all, or none)";
        return false;
      }
      result.Add(static_cast<LeakKind>(1 + (found - std::begin(kKindNames))));
    }
  }
  if (!any_word) {
    *error = "empty leak kind set (expected definite, indirect, possible, reachable, all or none)";
    return false;
  }
  if ((all || none) && (all + none + !result.empty() > 1)) {
    *error =
        "\"all\" and \"none\" stand alone: they cannot be combined with each other or with "
        "leak kinds";
    return false;
  }
  *set = all ? All() : result;
  return true;
}

std::string LeakKindSet::ToString() const {
  if (*this == All()) return "all";
  if (empty()) return "none";
  std::string out;
  for (size_t k = 0; k < std::size(kKindNames); ++k) {
    if (!Contains(static_cast<LeakKind>(k + 1))) continue;
    if (!out.empty()) out += ',';
    out += kKindNames[k];
  }
  return out;
}

bool Suppressions::AddFile(const std::string& path, std::string* error) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    *error = path + ": is a directory, not a suppression file";
    return false;
  }
  struct Closer {
    void operator()(FILE* f) const { std::fclose(f); }
  };
  std::unique_ptr<FILE, Closer> file(std::fopen(path.c_str(), "rb"));
  if (file == nullptr) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  std::string text;
  char buffer[1 << 14];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) text.append(buffer, n);
  if (std::ferror(file.get())) {
    *error = path + ": cannot read: " + std::strerror(errno);
    return false;
  }
  return AddText(text, path, error);
}

bool Suppressions::AddText(std::string_view text, const std::string& name, std::string* error) {
  std::vector<Suppression> parsed;
  const uint32_t num_callers = std::clamp<uint32_t>(options_.num_callers, 1, 500);
  const bool ok = internal::DetectFormat(text) == SuppressionFormat::kValgrind
                      ? internal::ParseValgrind(text, name, num_callers, &parsed, error)
                      : internal::ParseLeakSanitizer(text, name, &parsed, error);
  if (!ok) return false;
  for (Suppression& s : parsed) {
    if (s.format == SuppressionFormat::kLeakSanitizer) ++lsan_count_;
    entries_.push_back(std::move(s));
  }
  return true;
}

const Suppression* Suppressions::Match(LeakKind kind, std::span<const LeakFrame> stack) const {
  for (const Suppression& s : entries_) {
    if (s.format == SuppressionFormat::kValgrind && s.kinds.Contains(kind) &&
        MatchesValgrind(s, stack)) {
      return &s;
    }
  }
  return lsan_count_ == 0 ? nullptr : MatchLeakSanitizer(stack);
}

bool Suppressions::MatchesValgrind(const Suppression& s, std::span<const LeakFrame> stack) const {
  const std::vector<FramePattern>& frames = s.frames;
  auto is_any_frames = [&](size_t p) { return frames[p].type == FramePattern::Type::kAnyFrames; };
  return WildcardMatch(
      frames.size(), stack.size(), /*prefix=*/true, is_any_frames, [](size_t) { return false; },
      [&](size_t p, size_t i) { return FrameMatches(frames[p], stack[i], options_.strict); });
}

// LSan's SuppressByRule and GetSuppressionForAddr: frames innermost first;
// for each, the module, then the function, then the file, each against every
// leak: entry in order. (An address's inlined frames share its module, so
// trying the module again for each of them changes no answer.)
const Suppression* Suppressions::MatchLeakSanitizer(std::span<const LeakFrame> stack) const {
  auto first_matching = [&](std::string_view name) -> const Suppression* {
    for (const Suppression& s : entries_) {
      if (s.format == SuppressionFormat::kLeakSanitizer && TemplateMatch(s.name, name)) return &s;
    }
    return nullptr;
  };
  for (const LeakFrame& frame : stack) {
    const std::string_view module =
        frame.module.empty() ? std::string_view("<unknown module>") : frame.module;
    for (std::string_view name :
         {module, std::string_view(frame.function), std::string_view(frame.file)}) {
      if (const Suppression* s = first_matching(name)) return s;
    }
  }
  return nullptr;
}

}  // namespace heaprec::analyzers
