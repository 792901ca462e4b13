// FoldPaths: sites -> merged, named call paths (folded_paths.h).
#include "analyzers/folded_paths.h"

#include <map>
#include <utility>

namespace heaprec::analyzers {
namespace {

// ';' separates frames and a line break ends a record: neither may be in a name.
std::string Sanitized(std::string name) {
  for (char& c : name) {
    if (c == ';') c = ':';
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return name;
}

std::string JoinedNames(const std::vector<PathFrame>& frames) {
  std::string key;
  for (const PathFrame& f : frames) {
    if (!key.empty()) key += ';';
    key += f.name;
  }
  return key;
}

}  // namespace

std::string FoldedName(const Frame& f) {
  std::string name = FrameName(f);
  if (f.inlined) name += kInlinedSuffix;
  return Sanitized(std::move(name));
}

std::vector<PathFrame> PathOf(uint32_t stack, const SymbolTable& symbols) {
  if (stack == 0) return {PathFrame{.name = kNoStackFrame}};
  const std::vector<Frame> frames = symbols.Frames(stack);
  if (frames.empty()) return {PathFrame{.name = kUnknownStackFrame}};
  std::vector<PathFrame> path;
  path.reserve(frames.size());
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
    path.push_back({FoldedName(*it), it->file, it->line, it->inlined});
  }
  return path;
}

void MergeLocation(const PathFrame& from, PathFrame* into) {
  if (from.file != into->file) {
    into->file.clear();
    into->line = 0;
  } else if (from.line != into->line) {
    into->line = 0;
  }
}

std::vector<FoldedPath> FoldPaths(const std::vector<Site>& sites, Metric metric,
                                  const SymbolTable& symbols) {
  std::map<std::string, FoldedPath> by_names;
  for (const Site& site : sites) {
    const uint64_t value = ValueOf(site, metric);
    if (value == 0) continue;
    std::vector<PathFrame> path = PathOf(site.stack, symbols);
    auto [it, added] = by_names.try_emplace(JoinedNames(path));
    FoldedPath& merged = it->second;
    if (added) {
      merged.frames = std::move(path);
    } else {
      for (size_t i = 0; i < path.size(); ++i) MergeLocation(path[i], &merged.frames[i]);
    }
    merged.value += value;
  }
  std::vector<FoldedPath> out;
  out.reserve(by_names.size());
  for (auto& [key, path] : by_names) out.push_back(std::move(path));
  return out;
}

}  // namespace heaprec::analyzers
