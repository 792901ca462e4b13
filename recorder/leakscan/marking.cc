// Phase 1 and phase 2 (marking.h), mc_leakcheck.c's lc_push, lc_pop,
// lc_push_without_clique_if_a_chunk_ptr, lc_push_with_clique_if_a_chunk_ptr
// and lc_process_markstack over graph edges instead of memory words.
#include "recorder/leakscan/marking.h"

namespace heaprec::recorder::leakscan {

namespace {

// Words lc_scan_memory looks at in a block (all readable, natively).
uint64_t WordsIn(const LiveBlock& b) {
  const uint64_t low = (b.address + 7) & ~uint64_t{7};
  const uint64_t high = (b.address + b.size) & ~uint64_t{7};
  return high > low ? (high - low) / 8 : 0;
}

class MarkStack {
 public:
  // block_edges: the graph's, to fetch a pushed block's edge range early
  // (most pushed blocks are popped soon after: the stack is LIFO).
  MarkStack(BlockStates* states, const uint64_t* block_edges)
      : states_(states), block_edges_(block_edges) {
    stack_.reserve(states->size());
  }
  void Push(uint32_t i) {
    if (states_->pending(i)) return;
    __builtin_prefetch(block_edges_ + i);
    stack_.push_back(i);
    states_->set_pending(i, true);
  }
  bool Pop(uint32_t* i) {
    if (stack_.empty()) return false;
    *i = stack_.back();
    stack_.pop_back();
    states_->set_pending(*i, false);
    return true;
  }

 private:
  BlockStates* states_;
  const uint64_t* block_edges_;
  BigVector<uint32_t> stack_;
};

// lc_push_without_clique_if_a_chunk_ptr. The edge's kind is the heuristic
// test's answer (the same whenever memcheck would ask it).
inline void Mark(uint32_t edge, bool prior_definite, BlockStates* s, MarkStack* stack) {
  const uint32_t i = EdgeTarget(edge);
  const uint32_t kind = EdgeKind(edge);
  const BlockStates::State state = s->state(i);
  if (state == BlockStates::kReachable) {
    if (kind == kStartEdge && s->heuristic(i) != Heuristic::kNone) {
      s->set_heuristic(i, Heuristic::kNone);
    }
    return;
  }
  bool via_reachable = true;
  if (kind != kStartEdge) {
    // Overwrites the field, with none too (the kinds were tested with the
    // enabled set only; an empty set leaves every interior edge kInteriorEdge
    // and the field at none, as memcheck leaves it untouched).
    const Heuristic h = static_cast<Heuristic>(kind);
    s->set_heuristic(i, h);
    via_reachable = h != Heuristic::kNone;
  }
  if (via_reachable && prior_definite) {
    s->set_state(i, BlockStates::kReachable);
    stack->Push(i);
  } else if (state == BlockStates::kUnreached) {
    s->set_state(i, BlockStates::kPossible);
    stack->Push(i);
  }
}

}  // namespace

void MarkFromRoots(const PointerGraph& graph, std::span<const LiveBlock> blocks,
                   uint64_t root_words, BlockStates* states, MarkStats* stats,
                   BigVector<uint32_t>* reachable_order) {
  MarkStack stack(states, graph.block_edges.data());
  for (const uint32_t edge : graph.RootEdges()) Mark(edge, true, states, &stack);
  uint32_t top;
  while (stack.Pop(&top)) {
    ++stats->pops;
    states->count_scan(top);
    const bool prior_definite = states->state(top) != BlockStates::kPossible;
    if (reachable_order != nullptr && states->state(top) == BlockStates::kReachable) {
      reachable_order->push_back(top);
    }
    for (const uint32_t edge : graph.BlockEdges(top)) Mark(edge, prior_definite, states, &stack);
  }
  // Counted apart so that the loop above touches no block: the blocks array
  // is the largest thing read at random.
  uint64_t scanned_words = root_words;
  for (uint32_t i = 0; i < blocks.size(); ++i)
    scanned_words += states->scans(i) * WordsIn(blocks[i]);
  stats->scanned_words = scanned_words;
}

void GatherCliques(const PointerGraph& graph, std::span<const LiveBlock> blocks,
                   BlockStates* states, std::vector<uint64_t>* indirect_bytes) {
  const uint32_t n = static_cast<uint32_t>(blocks.size());
  std::vector<uint64_t>& indirect = *indirect_bytes;
  indirect.assign(n, 0);
  MarkStack stack(states, graph.block_edges.data());
  for (uint32_t leader = 0; leader < n; ++leader) {
    if (states->state(leader) != BlockStates::kUnreached) continue;
    stack.Push(leader);
    uint32_t top;
    while (stack.Pop(&top)) {
      for (const uint32_t edge : graph.BlockEdges(top)) {
        const uint32_t j = EdgeTarget(edge);
        if (states->state(j) != BlockStates::kUnreached || j == leader) continue;
        stack.Push(j);
        indirect[leader] += blocks[j].size + indirect[j];
        indirect[j] = 0;  // memcheck's union now holds the clique, not a size
        states->set_state(j, BlockStates::kIndirectLeak);
      }
    }
  }
}

}  // namespace heaprec::recorder::leakscan
