// ClassifyLeaks: memcheck's leak classification (valgrind 3.19, spec
// /work/notes/memcheck_leak_spec.md, sections 2-8) of every live heap block
// of a process, from its blocks, its roots and its memory, wherever these
// come from: the launcher reads another process (ptrace, /proc/PID/maps,
// process_vm_readv), tests a fake. Every block comes out definitely lost,
// indirectly lost, possibly lost or still reachable, with memcheck's
// heuristic field, the LEAK SUMMARY's totals and heuristic lines, and, which
// memcheck does not give, the root that retains each still reachable block.
//
// Exactly memcheck's algorithm, in its order (marking.h), with one deliberate
// difference: there are no V bits natively, so every readable 8-aligned word
// counts as defined (spec section 12.2 says how the caller makes that close:
// zero-filled allocations, stacks from SP-128). Also not here: choosing the
// root ranges and registers (the caller's, spec sections 3 and 12),
// suppressions and loss records (they need allocation stacks).
//
// How it runs: the memory is read once (pointer_graph.h: roots in 1 MiB
// chunks, blocks many to a read), the pointers found become a compact graph,
// and the two marking phases, the heuristic bookkeeping and the retention
// walk that graph.
//
// Not thread-safe (one call at a time per MemorySource / VtableOracle);
// allocates: the result holds 14 bytes a block; while it runs, about 30 bytes
// a block and 4 a pointer found, 2.5 times that at the retention's peak (the
// benchmark's 10 million blocks and 27.7 million pointers: 310 MiB, 792 MiB
// with retention). Called by the launcher at the end of the traced process
// and on request.
#ifndef HEAPREC_RECORDER_LEAKSCAN_LEAK_GRAPH_H_
#define HEAPREC_RECORDER_LEAKSCAN_LEAK_GRAPH_H_

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "recorder/leakscan/memory_source.h"
#include "recorder/leakscan/scan_types.h"
#include "recorder/leakscan/vtable_oracle.h"

namespace heaprec::recorder::leakscan {

struct LeakScanInput {
  // Sorted by address, not overlapping (a size-0 block covers one byte).
  // Read at random throughout: millions of them are best in huge pages
  // (std::vector<LiveBlock, base::LargeBufferAllocator<LiveBlock>>: the
  // benchmark's read phase took 13% less time so).
  std::span<const LiveBlock> blocks;
  // Scanned first, in this order (memcheck: ascending address), each one's
  // aligned words ascending. Ids must not be kNoRoot or kSeveralRoots.
  std::span<const RootRange> root_ranges;
  // Then these, in this order (memcheck: threads ascending, RAX RCX RDX RBX
  // RSI RDI RSP RBP R8..R15).
  std::span<const RootValue> root_values;
  MemorySource* memory = nullptr;         // required
  VtableOracle* vtables = nullptr;        // null: multipleinheritance never matches
  const PointerFilter* filter = nullptr;  // null: every value in a block is a pointer
};

struct LeakScanOptions {
  HeuristicSet heuristics = HeuristicSet::All();  // --leak-check-heuristics
  bool retention = true;                          // compute retaining roots
  uint64_t read_batch_bytes = uint64_t{1} << 20;  // data per MemorySource::Read
  uint64_t merge_gap_bytes = 4096;  // read neighbouring blocks this far apart as one range
};

struct BlockVerdict {
  LeakKind kind = LeakKind::kDefinitelyLost;
  // memcheck's final heuristic field: may be set on a possibly lost block
  // (spec 6.4), and depends on the scan order (spec 6.5).
  Heuristic heuristic = Heuristic::kNone;
};

struct Totals {
  uint64_t bytes = 0;  // requested sizes
  uint64_t blocks = 0;
};

struct RootRetained {
  RootId root = kNoRoot;
  Totals retained;  // still reachable blocks whose retaining root it is
};

struct LeakScanStats {
  uint64_t root_bytes_read = 0;   // from root ranges
  uint64_t block_bytes_read = 0;  // for blocks, the small gaps between merged ones included
  uint64_t unreadable_bytes = 0;  // asked for and not readable (their words are not pointers)
  uint64_t read_calls = 0;        // MemorySource::Read calls (the VtableOracle's not included)
  uint64_t words_examined = 0;    // aligned words read (roots and blocks, once each)
  uint64_t pointers = 0;          // of those and the root values: pointers into a block
  uint64_t interior_pointers = 0;
  uint64_t ignored_pointers = 0;      // dropped by the filter
  uint64_t heuristic_candidates = 0;  // distinct interior values tested
  uint64_t phase1_scans = 0;          // blocks scanned in phase 1 (rescans included)
  uint64_t checked_bytes = 0;         // memcheck's "Checked N bytes" (phase 1, rescans included)
  uint64_t strong_edges = 0;          // edges of the retention graph
  // Wall time of each phase, in nanoseconds.
  uint64_t index_ns = 0;      // checking and indexing the blocks
  uint64_t read_ns = 0;       // reading roots and blocks, finding pointers
  uint64_t heuristic_ns = 0;  // fetching words for and running the heuristics
  uint64_t phase1_ns = 0;     // marking from the roots
  uint64_t phase2_ns = 0;     // cliques
  uint64_t retention_ns = 0;  // strong graph and dominators
  uint64_t total_ns = 0;
};

struct LeakScanResult {
  // Per input block, in input order.
  std::vector<BlockVerdict> verdicts;
  // Definitely lost blocks: the bytes of their clique (memcheck's "(N direct,
  // M indirect)"); 0 for the others.
  std::vector<uint64_t> indirect_bytes;
  // Still reachable blocks: the root that retains it (or kSeveralRoots);
  // kNoRoot for the others. Empty without options.retention.
  std::vector<RootId> retaining_root;

  // The LEAK SUMMARY before suppressions, indexed by LeakKind.
  std::array<Totals, kLeakKindCount> by_kind;
  // "of which reachable via heuristic", indexed by Heuristic ([0] unused):
  // every block whose final heuristic field is set, whatever its kind.
  std::array<Totals, kHeuristicCount> via_heuristic;

  // Every root id that holds a pointer into a block, ascending; then the
  // blocks no single root retains.
  std::vector<RootRetained> retained_by_root;
  Totals retained_by_several;

  LeakScanStats stats;

  const Totals& totals(LeakKind kind) const { return by_kind[static_cast<int>(kind)]; }
};

// Classifies input.blocks. Returns false, with *error saying what, for input
// that breaks the contract above (nothing is read then).
bool ClassifyLeaks(const LeakScanInput& input, const LeakScanOptions& options,
                   LeakScanResult* result, std::string* error);

}  // namespace heaprec::recorder::leakscan

#endif  // HEAPREC_RECORDER_LEAKSCAN_LEAK_GRAPH_H_
