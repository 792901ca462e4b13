// FoldedStacks (folded.h).
#include "analyzers/folded.h"

#include "analyzers/folded_paths.h"

namespace heaprec::analyzers {

std::string FoldedStacks(const std::vector<Site>& sites, Metric metric,
                         const SymbolTable& symbols) {
  std::string out;
  for (const FoldedPath& path : FoldPaths(sites, metric, symbols)) {
    for (size_t i = 0; i < path.frames.size(); ++i) {
      if (i != 0) out += ';';
      out += path.frames[i].name;
    }
    out += ' ';
    out += std::to_string(path.value);
    out += '\n';
  }
  return out;
}

}  // namespace heaprec::analyzers
