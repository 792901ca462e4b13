// FoldedStacks: a profile in Brendan Gregg's collapsed-stack format, the input
// of FlameGraph's flamegraph.pl, speedscope and inferno:
//
//   main;parse;std::vector<int>::push_back 4096
//
// One line per distinct path of frame names (outermost first, joined by ';'),
// a space, then the path's value (bytes or count, summed over the sites whose
// stacks name the same path). Sites whose value is 0 are left out; lines are
// sorted bytewise by path. How frames are named (inlined frames marked "_[i]",
// unknown functions, "[no stack]") is in folded_paths.h.
// A pure function; allocates. Called by heapreplay's output options.
#ifndef HEAPREC_ANALYZERS_FOLDED_H_
#define HEAPREC_ANALYZERS_FOLDED_H_

#include <string>
#include <vector>

#include "analyzers/site.h"
#include "analyzers/symbol_table.h"

namespace heaprec::analyzers {

std::string FoldedStacks(const std::vector<Site>& sites, Metric metric, const SymbolTable& symbols);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_FOLDED_H_
