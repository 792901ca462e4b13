// heaprec --leak-check: after the program has ended and every trace is
// written, each trace is read back and its leak check printed on stderr as
// valgrind memcheck prints it (analyzers/leak_check_text.h), with the
// suppressions given. The caller exits with --error-exitcode when any process
// had a loss record of a kind that counts; a trace with no complete chunk
// (nothing to check) is an error, never a pass.
//
// Not thread-safe; allocates. Used by the launcher's main() after the run.
#ifndef HEAPREC_RECORDER_LAUNCHER_LEAK_GATE_H_
#define HEAPREC_RECORDER_LAUNCHER_LEAK_GATE_H_

#include <string>
#include <vector>

#include "analyzers/suppressions.h"
#include "recorder/launcher/options.h"
#include "recorder/launcher/session.h"

namespace heaprec::recorder::launcher {

// Prints the checks; returns the loss records that count as errors over all
// processes, or -1 with *error (one line) if a trace cannot be checked.
int64_t RunLeakGate(const std::vector<TraceResult>& results, const Options& o,
                    const analyzers::Suppressions& suppressions, std::string* error);

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_LEAK_GATE_H_
