// ClassifyLeaks (leak_graph.h): checks the input, builds the pointer graph,
// runs both phases and the retention, and sums up as print_results does.
#include "recorder/leakscan/leak_graph.h"

#include <cinttypes>
#include <cstdio>
#include <utility>

#include "recorder/leakscan/block_index.h"
#include "recorder/leakscan/marking.h"
#include "recorder/leakscan/pointer_graph.h"
#include "recorder/leakscan/retention.h"
#include "recorder/leakscan/scan_clock.h"

namespace heaprec::recorder::leakscan {

namespace {

bool ValidRoot(RootId id) { return id != kNoRoot && id != kSeveralRoots; }

std::string CheckInput(const LeakScanInput& input) {
  if (input.memory == nullptr) return "no memory source";
  std::string error = CheckBlocks(input.blocks);
  if (!error.empty()) return error;
  char message[160];
  for (size_t i = 0; i < input.root_ranges.size(); ++i) {
    const RootRange& r = input.root_ranges[i];
    if (!ValidRoot(r.root) || r.end < r.start) {
      std::snprintf(message, sizeof message,
                    "root range %zu [0x%" PRIx64 ", 0x%" PRIx64 ") id %" PRIu32
                    ": ids 0 and 0xffffffff are reserved, and a range must not end before it "
                    "starts",
                    i, r.start, r.end, r.root);
      return message;
    }
  }
  for (size_t i = 0; i < input.root_values.size(); ++i) {
    if (!ValidRoot(input.root_values[i].root)) {
      std::snprintf(message, sizeof message, "root value %zu: ids 0 and 0xffffffff are reserved",
                    i);
      return message;
    }
  }
  return {};
}

LeakKind KindOf(BlockStates::State s) {
  switch (s) {
    case BlockStates::kUnreached:
      return LeakKind::kDefinitelyLost;
    case BlockStates::kIndirectLeak:
      return LeakKind::kIndirectlyLost;
    case BlockStates::kPossible:
      return LeakKind::kPossiblyLost;
    case BlockStates::kReachable:
      break;
  }
  return LeakKind::kStillReachable;
}

}  // namespace

bool ClassifyLeaks(const LeakScanInput& input, const LeakScanOptions& options,
                   LeakScanResult* result, std::string* error) {
  const uint64_t start = MonotonicNs();
  *result = LeakScanResult();
  const std::string problem = CheckInput(input);
  if (!problem.empty()) {
    *error = problem;
    return false;
  }
  LeakScanStats& stats = result->stats;
  const std::span<const LiveBlock> blocks = input.blocks;
  const uint32_t n = static_cast<uint32_t>(blocks.size());

  const BlockIndex index(blocks);
  stats.index_ns = MonotonicNs() - start;

  PointerGraph graph;
  GraphStats graph_stats;
  GraphSources sources;
  sources.blocks = blocks;
  sources.index = &index;
  sources.root_ranges = input.root_ranges;
  sources.root_values = input.root_values;
  sources.filter = input.filter;
  sources.heuristics = options.heuristics;
  sources.vtables = input.vtables;
  sources.memory = input.memory;
  sources.batch_bytes = options.read_batch_bytes;
  sources.merge_gap = options.merge_gap_bytes;
  BuildPointerGraph(sources, &graph, &graph_stats);
  stats.root_bytes_read = graph_stats.root_reads.bytes_read;
  stats.block_bytes_read = graph_stats.block_reads.bytes_read;
  stats.unreadable_bytes = graph_stats.root_reads.bytes_unreadable +
                           graph_stats.block_reads.bytes_unreadable +
                           graph_stats.heuristic_reads.bytes_unreadable;
  stats.read_calls = graph_stats.root_reads.calls + graph_stats.block_reads.calls +
                     graph_stats.heuristic_reads.calls;
  stats.words_examined = graph_stats.root_words + graph_stats.block_words;
  stats.pointers = graph_stats.pointers;
  stats.interior_pointers = graph_stats.interior;
  stats.ignored_pointers = graph_stats.ignored;
  stats.heuristic_candidates = graph_stats.heuristic_candidates;
  stats.read_ns = graph_stats.read_ns;
  stats.heuristic_ns = graph_stats.heuristic_ns;

  BlockStates states(n);
  MarkStats mark_stats;
  const uint64_t phase1_start = MonotonicNs();
  BigVector<uint32_t> reachable_order;
  if (options.retention) reachable_order.reserve(n);
  MarkFromRoots(graph, blocks, graph_stats.root_words, &states, &mark_stats,
                options.retention ? &reachable_order : nullptr);
  const uint64_t phase2_start = MonotonicNs();
  GatherCliques(graph, blocks, &states, &result->indirect_bytes);
  stats.phase1_ns = phase2_start - phase1_start;
  stats.phase2_ns = MonotonicNs() - phase2_start;
  stats.phase1_scans = mark_stats.pops;
  stats.checked_bytes = mark_stats.scanned_words * 8;

  // print_results: every block into its kind; every block with a heuristic
  // field into that heuristic's line, whatever its kind.
  result->verdicts.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    BlockVerdict& v = result->verdicts[i];
    v.kind = KindOf(states.state(i));
    v.heuristic = states.heuristic(i);
    Totals& t = result->by_kind[static_cast<int>(v.kind)];
    t.bytes += blocks[i].size;
    ++t.blocks;
    if (v.heuristic != Heuristic::kNone) {
      Totals& h = result->via_heuristic[static_cast<int>(v.heuristic)];
      h.bytes += blocks[i].size;
      ++h.blocks;
    }
  }

  if (options.retention) {
    const uint64_t retention_start = MonotonicNs();
    Retention retention = ComputeRetention(graph, blocks, reachable_order);
    result->retaining_root = std::move(retention.retaining_root);
    for (const RootRetention& r : retention.by_root) {
      result->retained_by_root.push_back({r.root, {r.bytes, r.blocks}});
    }
    result->retained_by_several = {retention.several.bytes, retention.several.blocks};
    stats.strong_edges = retention.strong_edges;
    stats.retention_ns = MonotonicNs() - retention_start;
  }
  stats.total_ns = MonotonicNs() - start;
  return true;
}

}  // namespace heaprec::recorder::leakscan
