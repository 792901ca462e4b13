// Follow: whether this process image records, given heaprec's --follow= and
// --no-follow= patterns (recorder/shared/region_layout.h's
// HEAPREC_FOLLOW_ONLY and HEAPREC_FOLLOW_SKIP: comma-separated fnmatch globs
// on a program's file name). An image that does not record still keeps the
// session in its environment, so that the programs it starts decide for
// themselves (`sh -c 'python3 ...'` with sh skipped still records python3).
//
// A program's names (each its last path component): the file execve ran
// (AT_EXECFN: a script's own name, `python3` through a symlink), the
// executable after symlinks (/proc/self/exe: `python3.11`, `dash` for a
// shell script) and argv[0] (`sh` for a shell script). A pattern matches a
// program when it matches any of them.
//
// No allocation (fnmatch in the C locale, which holds until main runs; the
// patterns are copied to the stack); not thread-safe; called once per image
// by Initialize() (recorder.cc).
#ifndef HEAPREC_RECORDER_PRELOAD_FOLLOW_H_
#define HEAPREC_RECORDER_PRELOAD_FOLLOW_H_

#include <cstddef>

namespace heaprec::recorder::preload {

// True if one of the comma-separated patterns matches one of the n names.
// A pattern longer than 255 bytes matches nothing.
bool AnyPatternMatches(const char* patterns, const char* const* names, size_t n);

// True if a program with these names records: it matches a pattern of only
// (when only is set and not empty) and none of skip.
bool ProgramFollowed(const char* only, const char* skip, const char* const* names, size_t n);

// True if this process image records (ProgramFollowed on its own names).
bool ThisProgramFollowed(const char* only, const char* skip);

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_FOLLOW_H_
