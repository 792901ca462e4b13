// MissingSymbols: which modules left frames of the trace's stacks without a
// function name, and how many, so that a report can say so and how to fix it
// (install the module's Debian -dbgsym package, or heapreplay --debug-dir DIR
// with its debug file). A frame here is one distinct return address of the
// stack table inside a module (an address's inlined calls count once); one
// with no function (FrameName shows MODULE+0xOFFSET) is unnamed. Addresses in
// no known module (JIT code) are not counted: no file would name them.
// Pure function of the symbol table; allocates.
#ifndef HEAPREC_ANALYZERS_MISSING_SYMBOLS_H_
#define HEAPREC_ANALYZERS_MISSING_SYMBOLS_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analyzers/symbol_table.h"

namespace heaprec::analyzers {

struct MissingSymbols {
  std::string module;    // the module's file name (git, libfoo.so.1)
  std::string path;      // its path as mapped
  std::string build_id;  // lowercase hex; "" when none
  uint64_t frames = 0;   // distinct return addresses left unnamed
};

// Modules with at least one unnamed frame: most unnamed frames first, then by
// path.
std::vector<MissingSymbols> FindMissingSymbols(const SymbolTable& symbols);

// The JSON report's "symbols" object (docs/DESIGN.md), also the HTML page's:
// {"missing": [{"module", "path", "build_id", "frames"}]}.
nlohmann::json MissingSymbolsJson(const std::vector<MissingSymbols>& missing);

// One line for people: "no symbols for N frames in: git (build-id 1a2b..., 12
// frames), ...; install each module's -dbgsym package (Debian) or give
// heapreplay --debug-dir DIR with its debug file". "" when nothing is missing.
std::string MissingSymbolsText(const std::vector<MissingSymbols>& missing);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_MISSING_SYMBOLS_H_
