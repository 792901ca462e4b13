// Symbols from the binaries for traces without them (symbolize_missing.h).
#include "heapreplay/symbolize_missing.h"

#include <algorithm>
#include <string>
#include <unordered_set>

#include "analyzers/missing_symbols.h"
#include "symbolize/dwarf_symbolizer.h"

namespace heaprec::heapreplay {
namespace {

bool Named(const format::Symbol& s) {
  return std::any_of(s.frames.begin(), s.frames.end(), [](const format::SourceFrame& f) {
    return !f.function.empty() && f.function != "??";
  });
}

}  // namespace

std::vector<std::string> SymbolizeMissing(analyzers::SymbolTable* symbols,
                                          const std::optional<format::EndRecord>& end,
                                          const std::vector<std::string>& debug_dirs) {
  const bool retry_unnamed = !debug_dirs.empty();
  if (end && end->symbols_complete && !retry_unnamed) return {};
  const format::StackTable& stacks = symbols->stacks();
  std::unordered_set<uint64_t> missing;  // no Symbol in the trace
  std::unordered_set<uint64_t> unnamed;  // a Symbol without a function
  for (uint32_t id = 1; id <= stacks.size(); ++id) {
    const uint64_t address = stacks.Address(id);
    const format::Symbol* known = symbols->SymbolOf(address);
    if (known == nullptr) {
      if (!(end && end->symbols_complete) || retry_unnamed) missing.insert(address);
    } else if (retry_unnamed && !Named(*known)) {
      unnamed.insert(address);
    }
  }
  if (missing.empty() && unnamed.empty()) return {};
  std::vector<std::string> dirs = debug_dirs;
  dirs.push_back("/usr/lib/debug");
  symbolize::DwarfSymbolizer dwarf(dirs);
  for (const format::Module& m : symbols->modules()) dwarf.AddModule(m);
  size_t named = 0;
  for (const auto* set : {&missing, &unnamed}) {
    for (uint64_t address : *set) {
      format::Symbol s = dwarf.Symbolize(address, 0);
      s.address = address;
      if (s.frames.empty() || (set == &unnamed && !Named(s))) continue;
      ++named;
      symbols->AddSymbol(s);
    }
  }
  std::vector<std::string> notes;
  if (!missing.empty() && !(end && end->symbols_complete)) {
    notes.push_back("the trace names " + std::to_string(missing.size()) +
                    " return addresses without symbols; " + std::to_string(named) +
                    " were named from the binaries on disk");
  } else {
    notes.push_back("--debug-dir: " + std::to_string(named) + " of " +
                    std::to_string(missing.size() + unnamed.size()) +
                    " return addresses without a function were named");
  }
  // Only modules that still leave frames unnamed: the vDSO, never on disk,
  // rarely holds one.
  std::unordered_set<std::string> unnamed_paths;
  for (const analyzers::MissingSymbols& m : analyzers::FindMissingSymbols(*symbols)) {
    unnamed_paths.insert(m.path);
  }
  std::string lost;
  for (uint32_t id : dwarf.MissingModules()) {
    for (const format::Module& m : symbols->modules()) {
      if (m.id == id && unnamed_paths.count(m.path) != 0) {
        lost += (lost.empty() ? "" : ", ") + m.path;
      }
    }
  }
  if (!lost.empty()) {
    notes.push_back("no symbols for modules not found on disk (or with another build-id): " + lost);
  }
  return notes;
}

}  // namespace heaprec::heapreplay
