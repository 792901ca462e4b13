// DebugFiles: where a module's file and its symbols are, in the places users
// keep them, for DwarfSymbolizer. The directories are searched in order
// (heapreplay: each --debug-dir, then /usr/lib/debug). In each DIR:
//   DIR/.build-id/xx/rest         the module's own file by build-id (as
//                                 distributions link their binaries)
//   DIR/.build-id/xx/rest.debug   its separate debug file by build-id (as
//                                 Debian's -dbgsym packages install them)
//   DIR/<module path>             a copy of the machine's root (a sysroot)
//   DIR/<module file name>        the file itself, unstripped or not
//   DIR/<file name>.debug, DIR/<.gnu_debuglink name>   a debug file by name
// A file counts only if it is ELF and its GNU build-id equals the module's
// (when the module has one). libdwfl itself also finds a debug file by
// .gnu_debuglink beside the module (and in its .debug folder) and reads
// MiniDebugInfo (.gnu_debugdata, Fedora's xz-compressed symbol table).
// Reads files; allocates; thread-compatible (no shared state).
#ifndef HEAPREC_SYMBOLIZE_DEBUG_FILES_H_
#define HEAPREC_SYMBOLIZE_DEBUG_FILES_H_

#include <optional>
#include <string>
#include <vector>

#include "format/records.h"

namespace heaprec::symbolize {

// The GNU build-id of the ELF file at path (raw bytes; "" if it has none),
// or nullopt if the file cannot be opened or is not ELF.
std::optional<std::string> ReadBuildId(const std::string& path);

// "ab/cdef...": a build-id's place under DIR/.build-id/ (no suffix).
std::string BuildIdPath(const std::string& build_id);

// The file to read a module from: its path if that is the module (same
// build-id, or any ELF when the module has none), else the first of DIR's
// own file by build-id, DIR/<module path>, DIR/<file name> in each
// directory, else the first DIR/.build-id/xx/rest.debug (symbols without
// code suffice). "" when none is found.
std::string FindModuleFile(const format::Module& module, const std::vector<std::string>& dirs);

// A separate debug file for the module whose file is main_file, among the
// candidates in dirs that libdwfl's own search does not try (every name
// above but the .build-id/xx/rest.debug one), never main_file itself:
// its path, or "" if none.
std::string FindDebugFileByName(const std::string& build_id, const std::string& module_path,
                                const std::string& main_file, const std::string& debuglink,
                                const std::vector<std::string>& dirs);

}  // namespace heaprec::symbolize

#endif  // HEAPREC_SYMBOLIZE_DEBUG_FILES_H_
