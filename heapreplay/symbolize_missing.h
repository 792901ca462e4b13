// SymbolizeMissing: names the return addresses a trace holds no symbols for
// (a trace whose recording was cut before the launcher appended them, or one
// written without), from the binaries on disk, unless the trace's End says
// its symbols are complete (the launcher names every address it can; those
// without a Symbol have no known name): each module's file if its
// build-id matches, else a file of that build-id in the debug directories
// (symbolize/debug_files.h). With debug_dirs (heapreplay --debug-dir), also
// the addresses the trace's symbols leave without a function, looked up
// in debug_dirs and then /usr/lib/debug; a result replaces the trace's only
// when it names the function. Adds the Symbols found to the table and
// returns notes for the report: how many addresses were named from disk, and
// which modules that still leave frames unnamed could not be found.
// Not thread-safe; reads files; allocates.
#ifndef HEAPREC_HEAPREPLAY_SYMBOLIZE_MISSING_H_
#define HEAPREC_HEAPREPLAY_SYMBOLIZE_MISSING_H_

#include <optional>
#include <string>
#include <vector>

#include "analyzers/symbol_table.h"
#include "format/records.h"

namespace heaprec::heapreplay {

std::vector<std::string> SymbolizeMissing(analyzers::SymbolTable* symbols,
                                          const std::optional<format::EndRecord>& end,
                                          const std::vector<std::string>& debug_dirs = {});

}  // namespace heaprec::heapreplay

#endif  // HEAPREC_HEAPREPLAY_SYMBOLIZE_MISSING_H_
