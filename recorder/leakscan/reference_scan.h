// Slow references for the engine's tests, written again from the spec and
// sharing no code with the engine (no BlockIndex, no batching, no graph, no
// heuristics.h):
//
// - LiteralClassify: the spec's section 13 pseudocode line by line, reading
//   memory one word at a time, heuristics evaluated as the pointer is met:
//   states, heuristic fields and indirect sizes exactly as memcheck.
// - FixpointClassify: the order-independent characterisation (section 5.2:
//   Reachable = least set closed under strong edges from roots and Reachable
//   blocks; Possible = reached by any edges, minus Reachable) and section
//   7.1's cliques in address order.
// - RetentionByRemoval: a reachable block's retaining root is R iff it stops
//   being reachable (through strong edges) when R's edges are removed; no
//   root -> several.
//
// Test-only; quadratic in places. Not thread-safe; allocates.
#ifndef HEAPREC_RECORDER_LEAKSCAN_REFERENCE_SCAN_H_
#define HEAPREC_RECORDER_LEAKSCAN_REFERENCE_SCAN_H_

#include <cstdint>
#include <vector>

#include "recorder/leakscan/memory_source.h"
#include "recorder/leakscan/scan_types.h"
#include "recorder/leakscan/vtable_oracle.h"

namespace heaprec::recorder::leakscan {

struct ReferenceInput {
  std::vector<LiveBlock> blocks;
  std::vector<RootRange> root_ranges;
  std::vector<RootValue> root_values;
  MemorySource* memory = nullptr;
  VtableOracle* vtables = nullptr;
  const PointerFilter* filter = nullptr;
  HeuristicSet heuristics = HeuristicSet::All();
};

struct ReferenceResult {
  std::vector<LeakKind> kind;
  std::vector<Heuristic> heuristic;  // LiteralClassify only
  std::vector<uint64_t> indirect;    // definitely lost blocks' clique bytes
};

ReferenceResult LiteralClassify(const ReferenceInput& in);
ReferenceResult FixpointClassify(const ReferenceInput& in);
// Per block: the retaining root, kSeveralRoots, or kNoRoot if not reachable.
std::vector<RootId> RetentionByRemoval(const ReferenceInput& in);

}  // namespace heaprec::recorder::leakscan

#endif  // HEAPREC_RECORDER_LEAKSCAN_REFERENCE_SCAN_H_
