// BuildPointerGraph: reads roots and blocks, finds the pointers, tests the
// interior ones against the heuristics (pointer_graph.h).
#include "recorder/leakscan/pointer_graph.h"

#include <algorithm>
#include <cstring>

#include "recorder/leakscan/heuristics.h"
#include "recorder/leakscan/scan_clock.h"

namespace heaprec::recorder::leakscan {

namespace {

// The 8-aligned words lying wholly inside [start, end), as one range.
AddressRange AlignedPart(uint64_t start, uint64_t end) {
  if (end <= start) return {};
  const uint64_t low = start + ((8 - start % 8) % 8);
  const uint64_t high = end - end % 8;
  return high > low ? AddressRange{low, high - low} : AddressRange{};
}

// An interior pointer some heuristic may accept: edges[edge] holds value.
struct Candidate {
  uint64_t edge;
  uint64_t value;
};

class Builder {
 public:
  Builder(const GraphSources& sources, PointerGraph* graph, GraphStats* stats)
      : s_(sources),
        g_(graph),
        stats_(stats),
        blocks_(sources.blocks),
        index_(*sources.index),
        want_candidates_(!sources.heuristics.Empty()) {}

  void Roots() {
    BatchReader reader(s_.memory, s_.batch_bytes, s_.merge_gap);
    reader.Scan(
        s_.root_ranges.size(),
        [&](size_t i) { return AlignedPart(s_.root_ranges[i].start, s_.root_ranges[i].end); },
        [&](size_t i, uint64_t address, const std::byte* bytes, uint64_t length) {
          stats_->root_words += ScanWords(s_.root_ranges[i].root, address, bytes, length);
        });
    for (const RootValue& r : s_.root_values) {
      if (index_.InRange(r.value)) Queue(r.value, r.root);
    }
    Flush();
    if (!g_->root_runs.empty()) g_->root_runs.back().end = g_->edges.size();
    g_->root_edge_count = g_->edges.size();
    stats_->root_reads = reader.totals();
  }

  void Blocks() {
    const size_t n = blocks_.size();
    g_->block_edges.assign(n + 1, 0);
    in_blocks_ = true;
    BatchReader reader(s_.memory, s_.batch_bytes, s_.merge_gap);
    reader.Scan(
        n,
        [&](size_t i) {
          return AlignedPart(blocks_[i].address, blocks_[i].address + blocks_[i].size);
        },
        [&](size_t i, uint64_t address, const std::byte* bytes, uint64_t length) {
          stats_->block_words += ScanWords(static_cast<uint32_t>(i), address, bytes, length);
        });
    Flush();
    while (next_block_ <= n) g_->block_edges[next_block_++] = g_->edges.size();
    stats_->block_reads = reader.totals();
  }

  void Heuristics();

 private:
  // The aligned words of a piece (its start is aligned or the unit's start)
  // that may be pointers are queued; owner is the root id (roots) or the
  // block index (blocks).
  uint64_t ScanWords(uint32_t owner, uint64_t address, const std::byte* bytes, uint64_t length) {
    const AddressRange words = AlignedPart(address, address + length);
    const std::byte* p = bytes + (words.address - address);
    const uint64_t count = words.length / 8;
    for (uint64_t k = 0; k < count; ++k, p += 8) {
      // Without a branch on the value: pointers come in no pattern a
      // predictor could learn (a fifth of the benchmark's words).
      uint64_t value;
      std::memcpy(&value, p, 8);
      values_[pending_] = value;
      owners_[pending_] = owner;
      pending_ += index_.InRange(value) ? 1 : 0;
      if (pending_ == BlockIndex::kBatch) Flush();
    }
    return count;
  }

  // Lookups wait until BlockIndex::kBatch of them can go together (across
  // words, blocks and roots: most blocks hold a pointer or two), then are
  // placed in order.
  void Queue(uint64_t value, uint32_t owner) {
    values_[pending_] = value;
    owners_[pending_] = owner;
    if (++pending_ == BlockIndex::kBatch) Flush();
  }

  void Flush() {
    if (pending_ == 0) return;
    index_.FindMany(values_, pending_, targets_);
    for (size_t k = 0; k < pending_; ++k) {
      if (targets_[k] == kNoBlock) continue;
      if (in_blocks_) {
        while (next_block_ <= owners_[k]) g_->block_edges[next_block_++] = g_->edges.size();
      } else {
        StartRoot(owners_[k]);
      }
      AddPointer(values_[k], targets_[k]);
    }
    pending_ = 0;
  }

  void StartRoot(RootId root) {
    std::vector<RootRun>& runs = g_->root_runs;
    if (!runs.empty() && runs.back().root == root) return;
    if (!runs.empty()) runs.back().end = g_->edges.size();
    runs.push_back({root, g_->edges.size()});
  }

  void AddPointer(uint64_t value, uint32_t target) {
    const LiveBlock& block = blocks_[target];
    if (s_.filter != nullptr &&
        s_.filter->Ignore(value, BlockRef{target, block.address, block.size})) {
      ++stats_->ignored;
      return;
    }
    ++stats_->pointers;
    if (value == block.address) {
      g_->edges.push_back(MakeEdge(target, kStartEdge));
      return;
    }
    ++stats_->interior;
    if (want_candidates_ && MayMatchHeuristic(s_.heuristics, s_.vtables != nullptr, value, block)) {
      candidates_.push_back({g_->edges.size(), value});
    }
    g_->edges.push_back(MakeEdge(target, kInteriorEdge));
  }

  const GraphSources& s_;
  PointerGraph* g_;
  GraphStats* stats_;
  std::span<const LiveBlock> blocks_;
  const BlockIndex& index_;
  const bool want_candidates_;
  std::vector<Candidate> candidates_;
  bool in_blocks_ = false;
  size_t next_block_ = 0;  // the first block whose edges' start is not set yet
  size_t pending_ = 0;
  uint64_t values_[BlockIndex::kBatch];
  uint32_t owners_[BlockIndex::kBatch];
  uint32_t targets_[BlockIndex::kBatch];
};

void Builder::Heuristics() {
  if (candidates_.empty()) return;
  std::sort(candidates_.begin(), candidates_.end(), [](const Candidate& a, const Candidate& b) {
    return a.value < b.value || (a.value == b.value && a.edge < b.edge);
  });

  // The words any test may look at: the block's first two and the one the
  // value points at.
  std::vector<uint64_t> words;
  for (size_t c = 0; c < candidates_.size(); ++c) {
    if (c > 0 && candidates_[c].value == candidates_[c - 1].value) continue;
    const uint64_t v = candidates_[c].value;
    const LiveBlock& b = blocks_[EdgeTarget(g_->edges[candidates_[c].edge])];
    if (IsBlockWord(b, b.address)) words.push_back(b.address);
    if (IsBlockWord(b, b.address + 8)) words.push_back(b.address + 8);
    if (IsBlockWord(b, v)) words.push_back(v);
    ++stats_->heuristic_candidates;
  }
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  stats_->heuristic_words = words.size();

  // Words close together are read as one range.
  std::vector<AddressRange> units;
  std::vector<size_t> unit_first;
  for (size_t k = 0; k < words.size(); ++k) {
    if (units.empty() || words[k] > units.back().address + units.back().length + 64) {
      units.push_back({words[k], 8});
      unit_first.push_back(k);
    } else {
      units.back().length = words[k] + 8 - units.back().address;
    }
  }
  unit_first.push_back(words.size());
  std::vector<uint64_t> values(words.size(), 0);
  std::vector<uint8_t> read(words.size(), 0);
  BatchReader reader(s_.memory, s_.batch_bytes, s_.merge_gap);
  reader.Scan(
      units.size(), [&](size_t u) { return units[u]; },
      [&](size_t u, uint64_t address, const std::byte* bytes, uint64_t length) {
        for (size_t k = unit_first[u]; k < unit_first[u + 1]; ++k) {
          if (words[k] >= address && words[k] + 8 <= address + length) {
            std::memcpy(&values[k], bytes + (words[k] - address), 8);
            read[k] = 1;
          }
        }
      });
  stats_->heuristic_reads = reader.totals();

  auto word_at = [&](uint64_t address) {
    const auto it = std::lower_bound(words.begin(), words.end(), address);
    const size_t k = static_cast<size_t>(it - words.begin());
    if (it == words.end() || *it != address || read[k] == 0) return BlockWord{};
    return BlockWord{BlockWord::kValue, values[k]};
  };
  for (size_t c = 0; c < candidates_.size();) {
    const uint64_t v = candidates_[c].value;
    const uint32_t target = EdgeTarget(g_->edges[candidates_[c].edge]);
    const Heuristic h = TestHeuristics(s_.heuristics, v, blocks_[target], word_at, s_.vtables);
    for (; c < candidates_.size() && candidates_[c].value == v; ++c) {
      if (h != Heuristic::kNone) {
        g_->edges[candidates_[c].edge] = MakeEdge(target, static_cast<uint32_t>(h));
      }
    }
  }
  candidates_.clear();
  candidates_.shrink_to_fit();
}

}  // namespace

void BuildPointerGraph(const GraphSources& sources, PointerGraph* graph, GraphStats* stats) {
  *graph = PointerGraph();
  *stats = GraphStats();
  // At most one edge a word or root value: reserving that much address space
  // costs nothing until used, and growing by copies would touch (and make
  // the kernel clear) twice the memory.
  uint64_t most = sources.root_values.size();
  for (const RootRange& r : sources.root_ranges) most += AlignedPart(r.start, r.end).length / 8;
  for (const LiveBlock& b : sources.blocks) most += b.size / 8;
  graph->edges.reserve(most);
  Builder builder(sources, graph, stats);
  const uint64_t t0 = MonotonicNs();
  builder.Roots();
  builder.Blocks();
  const uint64_t t1 = MonotonicNs();
  builder.Heuristics();
  stats->read_ns = t1 - t0;
  stats->heuristic_ns = MonotonicNs() - t1;
}

}  // namespace heaprec::recorder::leakscan
