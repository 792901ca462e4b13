// AttachFiles: the files heaprec -p puts where the process can open them,
// as the process names them. In heaprec's own mount namespace that is the
// session folder made as for a started program, and libheaprec.so where it
// is. A process in another mount namespace (a container) sees neither: the
// session folder is made inside its root (/proc/PID/root/dev/shm, else
// .../tmp), and libheaprec.so and the libraries it needs beyond the C
// library (libunwind, liblzma: the DT_NEEDED closure, read with libelf) are
// copied beside it, into heaprec.lib (kept, so that a later attach finds the
// recorder loaded under that name; a copy replaces a file by rename, never
// in place), to be loaded there by path, dependencies first (the loader
// then finds libheaprec.so's needs among the loaded objects).
//
// Not thread-safe; allocates.
#ifndef HEAPREC_RECORDER_LAUNCHER_ATTACH_FILES_H_
#define HEAPREC_RECORDER_LAUNCHER_ATTACH_FILES_H_

#include <sys/types.h>

#include <string>
#include <vector>

namespace heaprec::recorder::launcher {

struct AttachFiles {
  std::string session_here;   // the session folder as heaprec opens it
  std::string session_there;  // ... and as the process names it
  // What the process dlopens, in order (dependencies first); the last is
  // libheaprec.so, as the process names it.
  std::vector<std::string> load;
  bool foreign = false;  // the process is in another mount namespace
};

// Prepares the files for pid (running as uid) from library (libheaprec.so
// here). False with *error (one line) if they cannot be made.
bool PrepareAttachFiles(pid_t pid, uid_t uid, const std::string& library, AttachFiles* files,
                        std::string* error);

// The DT_NEEDED names of an ELF file, or empty.
std::vector<std::string> NeededLibraries(const std::string& path);

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_ATTACH_FILES_H_
