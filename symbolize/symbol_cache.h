// SymbolCache: the frames of return addresses symbolized in earlier runs,
// kept on disk by module build-id, so that a program recorded again (and the
// libraries every program shares) needs no debug information opened: on
// Python with libc's debug package installed, opening libc's compressed
// DWARF alone took ~0.2 s after every run (heaprec waited for it at exit).
//
// One file per module, DIR/<build-id hex>.symbols: a first line naming the
// cache's version and the module's signature, then one record per address:
// its offset from the module's load bias and its frames (function, file,
// line, column; tab-separated text). The signature is the build-id, the
// module file's size and time, and the size and time of the debug file
// found for it by build-id under each debug directory, named (or "none"): a debug
// package installed or updated since, or another file found for the module,
// makes a new signature, and the old records are dropped. Entries whose
// strings hold a tab or a newline are not kept. Modules without a build-id
// are never cached. A damaged file is ignored (and replaced on Save).
//
// DIR is $HEAPREC_SYMBOL_CACHE if set ("off" or "" disables the cache),
// else $XDG_CACHE_HOME/heaprec/symbols, else $HOME/.cache/heaprec/symbols.
// Save writes each module's file anew (the old records and the new, through
// a temporary file of its process and thread and rename, so a reader never
// sees half a file; two symbolizers saving at once keep the last one's).
// Not thread-safe (one instance per thread); allocates; for the tools only.
#ifndef HEAPREC_SYMBOLIZE_SYMBOL_CACHE_H_
#define HEAPREC_SYMBOLIZE_SYMBOL_CACHE_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/records.h"

namespace heaprec::symbolize {

class SymbolCache {
 public:
  // The directory from the environment, "" if the cache is off.
  static std::string DefaultDir();

  explicit SymbolCache(std::string dir) : dir_(std::move(dir)) {}
  ~SymbolCache() { Save(); }
  SymbolCache(const SymbolCache&) = delete;
  SymbolCache& operator=(const SymbolCache&) = delete;

  bool enabled() const { return !dir_.empty(); }
  // The module id's build-id and signature (file: the ELF file found for it,
  // "" if none; debug_dirs as the symbolizer searches them). Reads nothing
  // of the cache yet.
  void AddModule(const format::Module& module, const std::string& file,
                 const std::vector<std::string>& debug_dirs);
  // The frames cached for module's address (absolute, in the process).
  bool Lookup(uint32_t module, uint64_t address, std::vector<format::SourceFrame>* frames);
  // Remembers frames for Save.
  void Store(uint32_t module, uint64_t address, const std::vector<format::SourceFrame>& frames);
  // Writes the files of modules that got new records. Called by the
  // destructor too.
  void Save();

 private:
  struct File {
    std::string name;       // DIR/<build-id hex>.symbols
    std::string signature;  // the first line's
    bool loaded = false;
    bool dirty = false;
    std::unordered_map<uint64_t, std::vector<format::SourceFrame>> frames;  // by offset
  };
  struct ModuleKey {
    File* file = nullptr;  // null: not cached
    uint64_t load_address = 0;
  };
  void Load(File& f);

  std::string dir_;
  std::unordered_map<std::string, File> files_;  // by file name
  std::unordered_map<uint32_t, ModuleKey> modules_;
};

}  // namespace heaprec::symbolize

#endif  // HEAPREC_SYMBOLIZE_SYMBOL_CACHE_H_
