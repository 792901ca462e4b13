// TopFunctions: a pprof-style `top` table of sites by function: flat (the
// value of sites whose first frame outside the allocator and its wrappers,
// Frame::allocator, is the function: it called the allocator itself, or its
// inlined frame did), cum (the value of sites with
// the function anywhere in their stack, counted once per site), flat% and
// cum% of the total, and sum% (running total of flat%).
// Pure functions; allocate.
#ifndef HEAPREC_ANALYZERS_TOP_TABLE_H_
#define HEAPREC_ANALYZERS_TOP_TABLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analyzers/site.h"
#include "analyzers/symbol_table.h"

namespace heaprec::analyzers {

struct FunctionRow {
  std::string function;  // FrameName: MODULE+0xOFFSET for a function without a name
  uint64_t flat = 0;
  uint64_t cum = 0;
};

// Every function in the sites' stacks, by flat then cum, largest first
// (ties by name). Sites without a stack count as "[no stack]".
std::vector<FunctionRow> TopFunctions(const std::vector<Site>& sites, Metric metric,
                                      const SymbolTable& symbols);

// The table as text, `top` rows (0 = all), values in human units for bytes.
// `total` is the 100% (usually the sum over all sites).
std::string TopTableText(const std::vector<FunctionRow>& rows, uint64_t total, Metric metric,
                         size_t top);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_TOP_TABLE_H_
