// The end of a recording run, for both ways to run heaprec (main.cc
// starting a program, attach_command.cc recording a running one): the
// session folder removed and the closing lines on stderr.
// Allocates; not thread-safe.
#ifndef HEAPREC_RECORDER_LAUNCHER_RUN_END_H_
#define HEAPREC_RECORDER_LAUNCHER_RUN_END_H_

#include <string>
#include <vector>

#include "recorder/launcher/options.h"
#include "recorder/launcher/session.h"

namespace heaprec::recorder::launcher {

// Removes the session folder and any region file left in it.
void RemoveSessionDir(const std::string& dir);

// The closing lines on stderr: one process on one line; several as a table
// (analyzers/process_table.h), largest peak first, at most a screenful.
void PrintSummary(const std::vector<TraceResult>& results, const Options& o);

// After them, for a sample: its peak and leaked are estimates (the writer
// scales them, format/block_numbers.h); its calls are those recorded.
void PrintSamplingNotice(const std::vector<TraceResult>& results);

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_RUN_END_H_
