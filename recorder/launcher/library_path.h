// Finds libheaprec.so for the launcher: beside the heaprec binary, in its
// Bazel runfiles, or in an installed prefix's lib/heaprec/.
// Allocates; used by main().
#ifndef HEAPREC_RECORDER_LAUNCHER_LIBRARY_PATH_H_
#define HEAPREC_RECORDER_LAUNCHER_LIBRARY_PATH_H_

#include <string>

namespace heaprec::recorder::launcher {

// Absolute path of libheaprec.so, or "" if none was found.
std::string FindPreloadLibrary();

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_LIBRARY_PATH_H_
