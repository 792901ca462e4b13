// The text of a valgrind massif out file (massif.out.PID) from
// MassifAnalyzer's snapshots, as massif 3.x writes it and ms_print and
// massif-visualizer read it:
//   desc: ..., cmd: ..., time_unit: ms, then per snapshot
//   snapshot=N, time=MS, mem_heap_B, mem_heap_extra_B=0, mem_stacks_B=0,
//   heap_tree=empty|detailed|peak and, when detailed, the tree:
//   "nK: BYTES (heap allocation functions) malloc/new/new[], ..." over the
//   innermost frames, then their callers ("nK: BYTES 0xADDR: fn (file:line)",
//   one space deeper per level, largest first). A child below 1% of the
//   snapshot's bytes (massif's default --threshold) is not written: the
//   children below it at one level become one line, "n0: BYTES in N places,
//   all below massif's threshold (1.00%)".
// Times are whole milliseconds since the process started (massif's
// --time-unit=ms); heaprec records no allocator overhead or stacks, hence
// the zeros. Pure function; allocates.
#ifndef HEAPREC_ANALYZERS_MASSIF_TEXT_H_
#define HEAPREC_ANALYZERS_MASSIF_TEXT_H_

#include <string>
#include <vector>

#include "analyzers/massif.h"
#include "analyzers/symbol_table.h"

namespace heaprec::analyzers {

struct MassifHeader {
  std::string desc;  // one line: what made the file
  std::string cmd;   // the traced command line
};

std::string MassifText(const MassifHeader& header, const std::vector<MassifSnapshot>& snapshots,
                       const SymbolTable& symbols);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_MASSIF_TEXT_H_
