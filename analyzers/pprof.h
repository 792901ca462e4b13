// pprof output: a heap profile as a gzipped profile.proto file (profile.proto
// beside this file), which `pprof`, `go tool pprof` and continuous-profiling
// servers read. Four values per call stack, as Go heap profiles have:
// alloc_objects/count, alloc_space/bytes, inuse_objects/count and
// inuse_space/bytes (the default).
//
// Frames come from the trace's own symbols: one Location per distinct return
// address, with one Line per frame of the inlined chain, and one Mapping per
// mapped range of each module (memory start and limit, file offset, path,
// build-id). A Location's address is its return address - 1, inside the call
// instruction, absolute: its Mapping makes it relative to the binary. A
// frame without a name gets a Line whose Function is MODULE+0xOFFSET
// (FrameName), and its Mapping claims no symbols (has_functions false ...),
// so that pprof symbolizes it from the binary when it can (the path, or
// PPROF_BINARY_PATH by build-id) and keeps that name when it cannot.
//
// Called by heapreplay once per run. Not thread-safe; allocates.
#ifndef HEAPREC_ANALYZERS_PPROF_H_
#define HEAPREC_ANALYZERS_PPROF_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analyzers/site.h"
#include "analyzers/symbol_table.h"

namespace heaprec::analyzers {

struct PprofInput {
  std::vector<Site> allocated;  // per stack: allocation calls (count), bytes allocated
  std::vector<Site> inuse;      // per stack: blocks and bytes live at the chosen moment
  int64_t time_nanos = 0;       // wall-clock start of the recording (ns since the epoch)
  int64_t duration_nanos = 0;
  std::vector<std::string> comments;  // shown by pprof as is, e.g. the command line
};

// Writes path: the gzip of a serialized perftools.profiles.Profile with one
// Sample per stack id found in allocated or inuse (sites of the same stack
// are summed; stack 0 gives a Sample without Locations). Returns false and
// sets *error to one line naming path when the file cannot be written.
bool WritePprof(const std::string& path, const PprofInput& in, const SymbolTable& symbols,
                std::string* error);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_PPROF_H_
