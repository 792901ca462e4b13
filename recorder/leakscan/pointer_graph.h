// PointerGraph: every pointer the scan can ever follow, read from the scanned
// process once: the root ranges (in the given order, words ascending), then
// the root values, then every live block's contents (blocks ascending), each
// aligned word that falls in a live block becoming an edge. Interior edges
// are then tested against the heuristics (a pure function of the value and
// the target's words), so each edge knows whether it is strong.
//
// Why a graph rather than memcheck's scan-as-you-mark: every block is scanned
// at least once anyway (phase 1 or phase 2), some twice (a Possible block
// upgraded to Reachable), and the reads come from another process: reading
// each block once, in address order and in large batches, is the cheapest way
// to get them; phase 1, phase 2 and the retention then walk the same edges in
// exactly memcheck's order (marking.h) without another read.
//
// An edge is 32 bits: the target block's index (29 bits, see kMaxBlocks) and
// its kind (3 bits): interior (weak), one of the four heuristics (an interior
// pointer a heuristic accepts: strong), or start pointer (strong).
//
// Build allocates (4 bytes an edge, 8 a block, 16 a heuristic candidate while
// building); not thread-safe; the result is immutable and may be shared.
#ifndef HEAPREC_RECORDER_LEAKSCAN_POINTER_GRAPH_H_
#define HEAPREC_RECORDER_LEAKSCAN_POINTER_GRAPH_H_

#include <cstdint>
#include <span>
#include <vector>

#include "recorder/leakscan/batch_reader.h"
#include "recorder/leakscan/big_vector.h"
#include "recorder/leakscan/block_index.h"
#include "recorder/leakscan/memory_source.h"
#include "recorder/leakscan/scan_types.h"
#include "recorder/leakscan/vtable_oracle.h"

namespace heaprec::recorder::leakscan {

inline constexpr unsigned kEdgeKindShift = 29;
inline constexpr uint32_t kEdgeTargetMask = (1u << kEdgeKindShift) - 1;
// Kinds 1..4 are the Heuristic values.
inline constexpr uint32_t kInteriorEdge = 0;
inline constexpr uint32_t kStartEdge = 7;

inline uint32_t EdgeTarget(uint32_t edge) { return edge & kEdgeTargetMask; }
inline uint32_t EdgeKind(uint32_t edge) { return edge >> kEdgeKindShift; }
// A start pointer, or an interior pointer a heuristic accepts (spec 5.2).
inline bool IsStrongEdge(uint32_t edge) { return EdgeKind(edge) != kInteriorEdge; }
inline uint32_t MakeEdge(uint32_t target, uint32_t kind) {
  return target | (kind << kEdgeKindShift);
}

// Edges [previous run's end, end) were found in roots named root.
struct RootRun {
  RootId root;
  uint64_t end;
};

struct PointerGraph {
  // Root edges in scan order, then each block's edges in word order.
  BigVector<uint32_t> edges;
  std::vector<RootRun> root_runs;
  uint64_t root_edge_count = 0;
  // Block i's edges: [block_edges[i], block_edges[i + 1]).
  BigVector<uint64_t> block_edges;

  std::span<const uint32_t> RootEdges() const { return {edges.data(), root_edge_count}; }
  std::span<const uint32_t> BlockEdges(uint32_t block) const {
    return {edges.data() + block_edges[block], edges.data() + block_edges[block + 1]};
  }
};

struct GraphSources {
  std::span<const LiveBlock> blocks;  // passed CheckBlocks
  const BlockIndex* index = nullptr;  // over blocks
  std::span<const RootRange> root_ranges;
  std::span<const RootValue> root_values;
  const PointerFilter* filter = nullptr;  // may be null
  HeuristicSet heuristics = HeuristicSet::All();
  VtableOracle* vtables = nullptr;  // null: multipleinheritance never matches
  MemorySource* memory = nullptr;
  uint64_t batch_bytes = uint64_t{1} << 20;
  uint64_t merge_gap = 4096;
};

struct GraphStats {
  uint64_t root_words = 0;            // aligned words read in root ranges
  uint64_t block_words = 0;           // aligned words read in blocks
  uint64_t pointers = 0;              // words and root values that fall in a block (edges)
  uint64_t ignored = 0;               // ... that the filter dropped (not edges)
  uint64_t interior = 0;              // edges that are interior pointers
  uint64_t heuristic_candidates = 0;  // distinct interior values tested
  uint64_t heuristic_words = 0;       // words fetched for the tests
  BatchReader::Totals root_reads;
  BatchReader::Totals block_reads;
  BatchReader::Totals heuristic_reads;
  uint64_t read_ns = 0;       // roots and blocks: reading and finding pointers
  uint64_t heuristic_ns = 0;  // fetching words and testing
};

void BuildPointerGraph(const GraphSources& sources, PointerGraph* graph, GraphStats* stats);

}  // namespace heaprec::recorder::leakscan

#endif  // HEAPREC_RECORDER_LEAKSCAN_POINTER_GRAPH_H_
