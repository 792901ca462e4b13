// The JSON file valgrind's DHAT viewer (dh_view.html) loads, from
// DhatAnalyzer's program points: dhatFileVersion 2, mode "heap", as DHAT
// (valgrind 3.15 and later) and the dhat-rs crate write it. Block lifetimes
// are recorded (bklt: true), accesses are not (bkacc: false: no rb, wb or
// acc fields). Times are microseconds since the process started (tu "µs",
// Mtu "s", as dhat-rs writes; tuth, the "short-lived" threshold, 10 µs).
// Per program point: tb, tbk, tl, mb, mbk, gb, gbk, eb, ebk and fs, indices
// into the frame table ftbl (ftbl[0] is "[root]"), innermost frame first,
// each frame as valgrind writes it (valgrind_frames.h). Stacks whose frames
// read the same are one program point (the viewer rejects a repeated one):
// their numbers are summed (mb, mbk too: an upper bound then).
// Pure function; allocates.
#ifndef HEAPREC_ANALYZERS_DHAT_JSON_H_
#define HEAPREC_ANALYZERS_DHAT_JSON_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analyzers/dhat.h"
#include "analyzers/symbol_table.h"

namespace heaprec::analyzers {

struct DhatHeader {
  std::string cmd;  // the traced command line
  int32_t pid = 0;
  uint64_t end_ns = 0;   // te
  uint64_t peak_ns = 0;  // tg
};

std::string DhatJson(const DhatHeader& header, const std::vector<DhatSite>& sites,
                     const SymbolTable& symbols);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_DHAT_JSON_H_
