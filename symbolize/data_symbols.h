// DataSymbols: the named variables of one ELF module (STT_OBJECT symbols
// with a size: globals and function-local statics), for saying which global
// holds a leak scan's reachable blocks ("g_cache [libfoo.so]"), and the
// module's static TLS segment.
//
// Reads the file's .symtab, or its separate debug file by build-id under
// /usr/lib/debug/.build-id when the file is stripped, else its .dynsym
// (exported variables only). Names are demangled.
//
// Not thread-safe; allocates. Used by the launcher's leak scan.
#ifndef HEAPREC_SYMBOLIZE_DATA_SYMBOLS_H_
#define HEAPREC_SYMBOLIZE_DATA_SYMBOLS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace heaprec::symbolize {

struct DataSymbol {
  uint64_t start = 0;  // address in the process (load bias added)
  uint64_t size = 0;
  std::string name;
};

struct ModuleData {
  std::vector<DataSymbol> symbols;  // sorted by start, not overlapping
  uint64_t tls_size = 0;            // PT_TLS memsz, 0 if none
  uint64_t tls_align = 0;
  bool from_symtab = false;  // a full symbol table (else exports only)
};

// The module at path, loaded with load_bias, whose GNU build-id is
// build_id (raw bytes; may be empty). Empty on any error.
ModuleData ReadModuleData(const std::string& path, uint64_t load_bias, const std::string& build_id);

// data (read at load bias 0) as ReadModuleData gives it at load_bias: every
// symbol's start moved by load_bias (the order and the overlaps it drops do
// not depend on the bias). Lets a caller read a file once for the processes
// that load it at other addresses.
ModuleData Rebased(const ModuleData& data, uint64_t load_bias);

}  // namespace heaprec::symbolize

#endif  // HEAPREC_SYMBOLIZE_DATA_SYMBOLS_H_
