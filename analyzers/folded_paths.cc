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

namespace {

// A site's path, a return address at a time: sites share most of their
// frames, so each address's frames are named once (outermost first, as in a
// path). Parts(site) gives the site's path as pieces and its joined names;
// a site without addresses (stack 0, or one the trace never defined) gets
// PathOf's one frame, held in `lone`.
class PathNamer {
 public:
  explicit PathNamer(const SymbolTable& symbols) : symbols_(symbols) {}

  // The pieces (outermost first) and joined names of stack's path, valid
  // until the next call.
  const std::vector<const std::vector<PathFrame>*>& Parts(uint32_t stack) {
    parts_.clear();
    key_.clear();
    const std::vector<uint64_t> addresses =
        stack == 0 ? std::vector<uint64_t>() : symbols_.stacks().Frames(stack);
    if (addresses.empty()) {
      lone_ = PathOf(stack, symbols_);
      Add(&lone_);
    }
    for (auto a = addresses.rbegin(); a != addresses.rend(); ++a) Add(&FramesAt(*a));
    return parts_;
  }
  const std::string& key() const { return key_; }

 private:
  const std::vector<PathFrame>& FramesAt(uint64_t address) {
    auto [it, fresh] = named_.try_emplace(address);
    if (fresh) {
      const std::vector<Frame>& frames = symbols_.KeptFramesOf(address);
      for (auto f = frames.rbegin(); f != frames.rend(); ++f) {
        it->second.push_back({FoldedName(*f), f->file, f->line, f->inlined});
      }
    }
    return it->second;
  }
  void Add(const std::vector<PathFrame>* part) {
    parts_.push_back(part);
    for (const PathFrame& f : *part) {
      if (!key_.empty()) key_ += ';';
      key_ += f.name;
    }
  }

  const SymbolTable& symbols_;
  std::unordered_map<uint64_t, std::vector<PathFrame>> named_;
  std::vector<PathFrame> lone_;
  std::vector<const std::vector<PathFrame>*> parts_;
  std::string key_;
};

}  // namespace

std::vector<FoldedPath> FoldPaths(const std::vector<Site>& sites, Metric metric,
                                  const SymbolTable& symbols) {
  PathNamer namer(symbols);
  std::map<std::string, FoldedPath> by_names;
  for (const Site& site : sites) {
    const uint64_t value = ValueOf(site, metric);
    if (value == 0) continue;
    const std::vector<const std::vector<PathFrame>*>& parts = namer.Parts(site.stack);
    auto [it, added] = by_names.try_emplace(namer.key());
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

std::vector<std::pair<std::string, uint64_t>> FoldNames(const std::vector<Site>& sites,
                                                        Metric metric, const SymbolTable& symbols) {
  PathNamer namer(symbols);
  std::map<std::string, uint64_t> by_names;
  for (const Site& site : sites) {
    const uint64_t value = ValueOf(site, metric);
    if (value == 0) continue;
    namer.Parts(site.stack);
    by_names[namer.key()] += value;
  }
  return {std::make_move_iterator(by_names.begin()), std::make_move_iterator(by_names.end())};
}

}  // namespace heaprec::analyzers
