// FoldedStacks (folded.h).
#include "analyzers/folded.h"

#include "analyzers/folded_paths.h"

namespace heaprec::analyzers {

std::string FoldedStacks(const std::vector<Site>& sites, Metric metric,
                         const SymbolTable& symbols) {
  std::string out;
  for (const auto& [names, value] : FoldNames(sites, metric, symbols)) {
    out += names;
    out += ' ';
    out += std::to_string(value);
    out += '\n';
  }
  return out;
}

}  // namespace heaprec::analyzers
