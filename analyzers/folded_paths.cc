// FoldPaths: sites -> merged, named call paths (folded_paths.h).
#include "analyzers/folded_paths.h"

#include <map>
#include <unordered_map>
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
  // PathOf, a return address at a time: sites share most of their frames, so
  // each address's frames are named once (outermost first, as in a path).
  std::unordered_map<uint64_t, std::vector<PathFrame>> named;
  auto frames_at = [&](uint64_t address) -> const std::vector<PathFrame>& {
    auto [it, fresh] = named.try_emplace(address);
    if (fresh) {
      const std::vector<Frame>& frames = symbols.KeptFramesOf(address);
      for (auto f = frames.rbegin(); f != frames.rend(); ++f) {
        it->second.push_back({FoldedName(*f), f->file, f->line, f->inlined});
      }
    }
    return it->second;
  };
  std::map<std::string, FoldedPath> by_names;
  std::vector<const std::vector<PathFrame>*> parts;  // a site's, outermost first
  std::string key;
  for (const Site& site : sites) {
    const uint64_t value = ValueOf(site, metric);
    if (value == 0) continue;
    const std::vector<uint64_t> addresses =
        site.stack == 0 ? std::vector<uint64_t>() : symbols.stacks().Frames(site.stack);
    if (addresses.empty()) {  // no stack, or one the trace never defined
      std::vector<PathFrame> path = PathOf(site.stack, symbols);
      auto [it, added] = by_names.try_emplace(JoinedNames(path));
      if (added) {
        it->second.frames = std::move(path);
      } else {
        for (size_t i = 0; i < path.size(); ++i) MergeLocation(path[i], &it->second.frames[i]);
      }
      it->second.value += value;
      continue;
    }
    parts.clear();
    key.clear();
    for (auto a = addresses.rbegin(); a != addresses.rend(); ++a) {
      parts.push_back(&frames_at(*a));
      for (const PathFrame& f : *parts.back()) {
        if (!key.empty()) key += ';';
        key += f.name;
      }
    }
    auto [it, added] = by_names.try_emplace(key);
    FoldedPath& merged = it->second;
    size_t i = 0;
    for (const std::vector<PathFrame>* part : parts) {
      for (const PathFrame& f : *part) {
        if (added) {
          merged.frames.push_back(f);
        } else {
          MergeLocation(f, &merged.frames[i]);
        }
        ++i;
      }
    }
    merged.value += value;
  }
  std::vector<FoldedPath> out;
  out.reserve(by_names.size());
  for (auto& [key, path] : by_names) out.push_back(std::move(path));
  return out;
}

}  // namespace heaprec::analyzers
