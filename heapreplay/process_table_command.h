// heapreplay given several traces, or a folder of them (a process tree that
// heaprec recorded): one summary pass over each trace, then one line per
// process, largest first (analyzers/process_table.h), as text (a
// screenful, then "... and N more") or, with --json, {"processes": [...]}
// listing every one (docs/DESIGN.md). A folder stands for the *.zst files
// directly in it.
// Reads files; allocates; main thread only.
#ifndef HEAPREC_HEAPREPLAY_PROCESS_TABLE_COMMAND_H_
#define HEAPREC_HEAPREPLAY_PROCESS_TABLE_COMMAND_H_

#include <string>
#include <vector>

#include "analyzers/analysis.h"
#include "analyzers/process_table.h"
#include "analyzers/summary.h"
#include "heapreplay/options.h"

namespace heaprec::heapreplay {

// True when the command line asks for the process table: more than one
// trace, or a folder.
bool WantsProcessTable(const Options& o);

// The traces named: each file as is, each folder's *.zst files directly in
// it (sorted by name). False + one line naming the folder in *error for an
// unreadable folder or one without traces.
bool ExpandTraces(const std::vector<std::string>& args, std::vector<std::string>* traces,
                  std::string* error);

// A row of the table from a pass over the trace at `path` (its summary).
analyzers::ProcessRow ProcessRowOf(const std::string& path, bool truncated,
                                   const analyzers::Analysis& a,
                                   const analyzers::SummaryAnalyzer& summary);

// Prints the table; returns heapreplay's exit status (2 for options that
// take one trace with several traces; 1 with one line naming the file for
// an unreadable trace, a folder without traces, or a folder alone given to
// an analysis).
int RunProcessTable(const Options& o);

}  // namespace heaprec::heapreplay

#endif  // HEAPREC_HEAPREPLAY_PROCESS_TABLE_COMMAND_H_
