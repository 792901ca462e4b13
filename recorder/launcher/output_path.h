// Trace file names: expands %p (pid) and %n (program name) in a pattern and
// never names an existing file (adds .1, .2... before ".zst").
// Allocates; used by the launcher.
#ifndef HEAPREC_RECORDER_LAUNCHER_OUTPUT_PATH_H_
#define HEAPREC_RECORDER_LAUNCHER_OUTPUT_PATH_H_

#include <string>

namespace heaprec::recorder::launcher {

// pattern empty = "heaprec.%n.%p.zst". %% is a literal %.
std::string ExpandPattern(const std::string& pattern, int pid, const std::string& program);

// The n-th alternative name: n = 0 is path itself, n = 1 "X.1.zst" for
// "X.zst" (or "X.1" without the extension), and so on.
std::string Alternative(const std::string& path, int n);

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_OUTPUT_PATH_H_
