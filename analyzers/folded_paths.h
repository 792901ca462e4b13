// FoldPaths: a profile's call stacks as flame graphs see them — outermost
// frame first, each frame named as the collapsed-stack format wants it, and
// stacks that name the same path merged. FoldedStacks (folded.h) prints these
// paths (FoldNames: their names and values alone, built by the same code)
// and FlameGraphSvg (flamegraph.h) draws them, so the text and the picture
// always agree.
//
// Names (FoldedName):
//  - a known function keeps its name; ';' becomes ':' and control characters
//    (line breaks, tabs) become spaces, so a name never splits a line or a path;
//  - an unknown function ("??") becomes FrameName's MODULE+0xOFFSET
//    ("git+0x1f069"), or "0x<address>" when even the module is unknown, so
//    that pprof, FlameGraph and speedscope users see where in the binary it
//    is and distinct unnamed functions stay distinct;
//  - an inlined frame gets FlameGraph's "_[i]" suffix (the suffix that
//    stackcollapse-perf.pl --inline writes and flamegraph.pl colors apart),
//    so a function inlined at one call site and called at another are two
//    frames;
//  - stack id 0 is one frame "[no stack]"; an id the trace never defined is one
//    frame "[unknown stack]".
// Pure functions; they allocate. Used by heapreplay's report writers, never by
// the recorder.
#ifndef HEAPREC_ANALYZERS_FOLDED_PATHS_H_
#define HEAPREC_ANALYZERS_FOLDED_PATHS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analyzers/site.h"
#include "analyzers/symbol_table.h"

namespace heaprec::analyzers {

inline constexpr char kInlinedSuffix[] = "_[i]";
inline constexpr char kNoStackFrame[] = "[no stack]";
inline constexpr char kUnknownStackFrame[] = "[unknown stack]";

struct PathFrame {
  std::string name;      // FoldedName: no ';', no control characters
  std::string file;      // "" when unknown, or when merged frames disagree
  uint32_t line = 0;     // 0 when unknown, or when merged frames disagree
  bool inlined = false;  // name ends with kInlinedSuffix
};

struct FoldedPath {
  std::vector<PathFrame> frames;  // outermost first; never empty
  uint64_t value = 0;             // sum of the merged sites' values; never 0
};

// The collapsed-format name of one frame (rules above).
std::string FoldedName(const Frame& f);

// The frames of one stack id, outermost first, named by FoldedName.
std::vector<PathFrame> PathOf(uint32_t stack, const SymbolTable& symbols);

// Merges two frames of the same name: a file or line kept only where both agree.
void MergeLocation(const PathFrame& from, PathFrame* into);

// One entry per distinct path of names whose sites have a nonzero value,
// sorted by the path joined with ';' (bytewise), so output is deterministic.
std::vector<FoldedPath> FoldPaths(const std::vector<Site>& sites, Metric metric,
                                  const SymbolTable& symbols);

// FoldPaths' paths as their joined names (frames joined by ';') and values,
// in the same order, without the frames: what the collapsed-stack text needs,
// in a fraction of the memory.
std::vector<std::pair<std::string, uint64_t>> FoldNames(const std::vector<Site>& sites,
                                                        Metric metric, const SymbolTable& symbols);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_FOLDED_PATHS_H_
