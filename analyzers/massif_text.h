// The text of a valgrind massif out file (massif.out.PID) from
// MassifAnalyzer's snapshots, as massif 3.x writes it and ms_print and
// massif-visualizer read it:
//   desc: ..., cmd: ..., time_unit: ms, then per snapshot
//   snapshot=N, time=MS, mem_heap_B, mem_heap_extra_B, mem_stacks_B=0,
//   heap_tree=empty|detailed|peak and, when detailed, the tree:
//   "nK: BYTES (heap allocation functions) malloc/new/new[], ..." over the
//   innermost frames, then their callers ("nK: BYTES 0xADDR: fn (file:line)",
//   one space deeper per level, largest first). A child below 1% of the
//   snapshot's bytes (massif's default --threshold) is not written: the
//   children below it at one level become one line, "n0: BYTES in N places,
//   all below massif's threshold (1.00%)".
// Times are whole milliseconds since the process started (massif's
// --time-unit=ms). mem_heap_B is the live heap; mem_heap_extra_B is not
// massif's per-block overhead (heaprec does not see the allocator's headers)
// but the resident memory beyond the heap (MassifSnapshot::extra_bytes: the
// anonymous RSS minus the heap), so ms_print's total column and graph show
// the process's anonymous RSS and its extra-heap column the gap; the `desc:`
// line says which (MassifExtraNote). heaprec records no stacks: 0.
// Pure functions; allocate.
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

// What mem_heap_extra_B holds, one phrase for the desc: line.
std::string MassifExtraNote(MassifResident resident);

std::string MassifText(const MassifHeader& header, const std::vector<MassifSnapshot>& snapshots,
                       const SymbolTable& symbols);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_MASSIF_TEXT_H_
