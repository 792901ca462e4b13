// DwarfSymbolizer: turns return addresses of a traced process into source
// frames (function, file, line, column), offline, from the modules' files and
// their debug information, with elfutils' libdwfl/libdw.
//
// Who calls it: the launcher (when recording ends, to write the trace's Symbol
// table) and heapreplay (for traces without symbols). Feed it every Module of
// the trace, then ask for each distinct return address once; results are
// cached per (module, address) anyway.
//
// Finding a module's file and its symbols (debug_files.h): Module::path if
// it is an ELF file whose GNU build-id equals Module::build_id (any file is
// accepted when build_id is empty); otherwise a file of that build-id in the
// debug directories (the module's own file by build-id, by path or by name,
// else its separate debug file by build-id); otherwise the module is missing
// (MissingModules) and its addresses get no frames. Separate debug
// information is found by build-id under the debug directories, then by name
// in them, then by .gnu_debuglink as libdwfl's dwfl_standard_find_debuginfo
// does; nothing is downloaded, and libdwfl's debuginfod client is not even
// loaded, unless DEBUGINFOD_URLS is set in the environment. Names without
// DWARF come from the ELF symbol tables (SymtabIndex: .symtab, .dynsym, and
// the MiniDebugInfo in .gnu_debugdata, which Debian's libdw reads with
// liblzma).
//
// Each module is opened on its first Symbolize, in its own libdwfl session, so
// modules that reused the same addresses (dlclose, then dlopen) never mix.
// Modules with the same file at the same load address share one session. An
// opened module keeps its files open (usually one or two descriptors) until
// the symbolizer is destroyed.
//
// Not thread-safe (libdwfl sessions are not): use one instance per thread.
// Allocates freely; for the tools, never for the preload library.
#ifndef HEAPREC_SYMBOLIZE_DWARF_SYMBOLIZER_H_
#define HEAPREC_SYMBOLIZE_DWARF_SYMBOLIZER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "format/records.h"

namespace heaprec::symbolize {

class DwarfSymbolizer {
 public:
  // Looks for debug files under /usr/lib/debug.
  DwarfSymbolizer();
  // Looks for them under debug_dir instead (it replaces /usr/lib/debug
  // everywhere, also in the separate debug file search).
  explicit DwarfSymbolizer(std::string debug_dir);
  // Looks under each of debug_dirs, in order, instead (list /usr/lib/debug
  // to keep it).
  explicit DwarfSymbolizer(std::vector<std::string> debug_dirs);
  ~DwarfSymbolizer();
  DwarfSymbolizer(DwarfSymbolizer&&) noexcept;
  DwarfSymbolizer& operator=(DwarfSymbolizer&&) noexcept;
  DwarfSymbolizer(const DwarfSymbolizer&) = delete;
  DwarfSymbolizer& operator=(const DwarfSymbolizer&) = delete;

  // Registers a module of the traced process: path, build_id (raw bytes),
  // load_address (the load bias, dl_phdr_info::dlpi_addr) and mapped ranges.
  // Modules may overlap in time and addresses; callers say which module id to
  // use. Checks that the file exists and matches now (cheap: the build-id
  // note only); reads no debug information yet. Id 0 is ignored; adding an id
  // again replaces the earlier module and forgets its cached symbols.
  void AddModule(const format::Module& module);

  // Symbolizes one return address (absolute, in the traced process) of
  // module_id; module_id 0 means the module added last whose ranges contain
  // address - 1. Looks up address - 1 so that the call instruction's line is
  // found. Frames are ordered innermost inlined frame first, the real
  // (outermost) function last; names are demangled; file, line and column
  // come from DWARF (the call site's, for the frames around an inlined one).
  // Without DWARF for the address, one frame with the ELF symbol table's name,
  // empty file and line 0. Nothing known (missing or unknown module, address
  // outside the module's file): no frames. Symbol::module is the module id
  // used (0 if none).
  format::Symbol Symbolize(uint64_t address, uint32_t module_id);

  // Keeps the frames found in a SymbolCache in dir (symbol_cache.h; "" =
  // none, the default), and takes the ones found there by earlier runs
  // instead of opening the modules' debug information. Call before
  // AddModule.
  void UseCache(const std::string& dir);
  // Writes what the cache learned so far (SymbolCache::Save); the cache
  // also saves when the symbolizer is destroyed, which a caller that leaves
  // its objects to the process's exit never reaches.
  void SaveCache();

  // Ids, in increasing order, of the modules whose file could not be found,
  // opened, or whose build-id did not match (for a note to users).
  std::vector<uint32_t> MissingModules() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace heaprec::symbolize

#endif  // HEAPREC_SYMBOLIZE_DWARF_SYMBOLIZER_H_
