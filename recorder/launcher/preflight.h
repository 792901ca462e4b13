// What heaprec checks before it starts the program, so that a run that could
// record nothing never runs at all: the folder the traces go to (-o) exists
// and takes a new file, and the session folder, where each traced process
// keeps its shared region (region_layout.h), can be made on a file system
// with room for it. Each problem is one line naming the path and what is
// wrong; main() prints it and exits 2 without running anything.
// Allocates; the launcher's main thread, before the program starts.
#ifndef HEAPREC_RECORDER_LAUNCHER_PREFLIGHT_H_
#define HEAPREC_RECORDER_LAUNCHER_PREFLIGHT_H_

#include <sys/statvfs.h>

#include <cstdint>
#include <string>
#include <vector>

namespace heaprec::recorder::launcher {

// Free space a session folder's file system must have. A process image's
// region touches about 1 MiB when it starts, then 1.5 MiB for each thread
// whose ring wraps (32768 records of 48 bytes) and its stacks as they are
// found (8 bytes a frame: 100,000 stacks of 30 frames are 24 MiB); 64 MiB
// holds a program with a dozen busy threads and that many stacks. On a
// tmpfs that fills, a page of the region cannot be backed and the traced
// program dies of SIGBUS: refusing before it starts is the only safe answer.
inline constexpr uint64_t kSessionMinFreeBytes = uint64_t{64} << 20;

// Free space the traces' folder must have: only a full disk is refused (a
// short program's trace is a few KiB; a longer one fails with a message
// when it is written).
inline constexpr uint64_t kOutputMinFreeBytes = uint64_t{1} << 20;

// What keeps heaprec from writing traces named by `pattern` (-o; empty: the
// default name in the current folder) for `program` (the command's first
// word, for %n), or "": "cannot write /x/y.zst: folder /x does not exist".
// Tries creating and removing a file there. A folder named with %p is only
// known when the process starts: not checked.
std::string OutputProblem(const std::string& pattern, const std::string& program);

// "" when a file system with these numbers has `need` bytes free, else what
// is wrong ("12.0 MiB free, heaprec needs 64.0 MiB").
std::string RoomProblem(const struct statvfs& fs, uint64_t need);

// Makes the session folder in the first of `bases` where it can be made and
// has kSessionMinFreeBytes free; returns its path, or "" and one line in
// *error naming each base tried and why not.
std::string MakeSessionDir(const std::vector<std::string>& bases, std::string* error);

// Where heaprec makes the session folder: /dev/shm, else $TMPDIR, else /tmp.
std::vector<std::string> SessionBases();

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_PREFLIGHT_H_
