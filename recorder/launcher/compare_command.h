// heaprec --compare-allocators: checks the allocator list and libraries,
// runs the comparison (replay/program_compare.h) with a progress line per
// round on stderr (unless -q), and prints the text or JSON on stdout.
// Exit status: 0; 1 when a run's exit code differed from glibc's in its
// round (the runs are reported); 2 for a bad --allocators list or a missing
// library; 127 when the program cannot be started. Allocates; runs the
// program; used by main().
#ifndef HEAPREC_RECORDER_LAUNCHER_COMPARE_COMMAND_H_
#define HEAPREC_RECORDER_LAUNCHER_COMPARE_COMMAND_H_

#include "recorder/launcher/options.h"

namespace heaprec::recorder::launcher {

int RunCompareAllocators(const Options& options);

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_COMPARE_COMMAND_H_
