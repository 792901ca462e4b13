// TestSymbols: a SymbolTable built by hand for the tests of the report
// formats (folded stacks, flame graphs): modules, the trace's Symbol records,
// and stacks given as return addresses, outermost first, as people read them.
// Test-only; not thread-safe; allocates.
#ifndef HEAPREC_ANALYZERS_TEST_SYMBOLS_H_
#define HEAPREC_ANALYZERS_TEST_SYMBOLS_H_

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "analyzers/symbol_table.h"
#include "format/records.h"

namespace heaprec::analyzers {

class TestSymbols {
 public:
  // A module mapped at [start, end).
  void AddModule(uint32_t id, const std::string& path, uint64_t start, uint64_t end);
  // The source frames of a return address: inlined frames first (innermost),
  // the real function last; no frames = a Symbol that names nothing.
  void AddSymbol(uint64_t address, uint32_t module, std::vector<format::SourceFrame> frames);
  // The id of the stack with these return addresses (outermost first), adding
  // the stack nodes it lacks; the same addresses always give the same id.
  uint32_t Stack(const std::vector<uint64_t>& outermost_first);
  // A random stack of 1 to max_depth of these addresses (Stack's id).
  uint32_t RandomStack(std::mt19937_64& rng, const std::vector<uint64_t>& addresses,
                       size_t max_depth);

  const SymbolTable& table() const { return table_; }

 private:
  SymbolTable table_;
  std::map<std::pair<uint32_t, uint64_t>, uint32_t> nodes_;  // (parent, address) -> id
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_TEST_SYMBOLS_H_
