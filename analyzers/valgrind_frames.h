// How valgrind's tools write one frame of a stack, for the files their
// viewers read (massif's out files, DHAT's frame table):
//   0x10A2B3: main (prog.c:20)        function, file and line known
//   0x10A2B3: main (in /usr/bin/prog) function known, no line
//   0x10A2B3: ??? (in /usr/bin/prog)  no function (ours: MODULE+0xOFFSET
//                                     would do, but ms_print users expect ???)
//   0x10A2B3: ???                     nothing known
// The address is the frame's return address in upper-case hex, as valgrind
// prints it. Pure function; allocates.
#ifndef HEAPREC_ANALYZERS_VALGRIND_FRAMES_H_
#define HEAPREC_ANALYZERS_VALGRIND_FRAMES_H_

#include <string>

#include "analyzers/symbol_table.h"

namespace heaprec::analyzers {

std::string ValgrindFrameText(const Frame& f);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_VALGRIND_FRAMES_H_
