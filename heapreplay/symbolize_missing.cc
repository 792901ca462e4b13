// Symbols from the binaries for traces without them (symbolize.h).
#include "heapreplay/symbolize_missing.h"

#include <unordered_set>

#include "symbolize/dwarf_symbolizer.h"

namespace heaprec::heapreplay {

std::vector<std::string> SymbolizeMissing(analyzers::SymbolTable* symbols,
                                          const std::optional<format::EndRecord>& end) {
  if (end && end->symbols_complete) return {};
  const format::StackTable& stacks = symbols->stacks();
  std::unordered_set<uint64_t> missing;
  for (uint32_t id = 1; id <= stacks.size(); ++id) {
    const uint64_t address = stacks.Address(id);
    if (symbols->SymbolOf(address) == nullptr) missing.insert(address);
  }
  if (missing.empty()) return {};
  symbolize::DwarfSymbolizer dwarf;
  for (const format::Module& m : symbols->modules()) dwarf.AddModule(m);
  size_t named = 0;
  for (uint64_t address : missing) {
    format::Symbol s = dwarf.Symbolize(address, 0);
    s.address = address;
    if (s.frames.empty()) continue;
    ++named;
    symbols->AddSymbol(s);
  }
  std::vector<std::string> notes;
  notes.push_back("the trace names " + std::to_string(stacks.size() ? missing.size() : 0) +
                  " return addresses without symbols; " + std::to_string(named) +
                  " were named from the binaries on disk");
  std::string lost;
  for (uint32_t id : dwarf.MissingModules()) {
    for (const format::Module& m : symbols->modules()) {
      if (m.id == id) lost += (lost.empty() ? "" : ", ") + m.path;
    }
  }
  if (!lost.empty()) {
    notes.push_back("no symbols for modules not found on disk (or with another build-id): " + lost);
  }
  return notes;
}

}  // namespace heaprec::heapreplay
