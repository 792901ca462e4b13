// memcheck's two marking phases over the pointer graph, step for step
// (spec sections 5.1 and 7.1; mc_leakcheck.c at VALGRIND_3_19_0):
//
// Phase 1 (MarkFromRoots): every root edge in scan order goes through mark()
// with prior_definite; then the LIFO mark stack is drained: a popped block's
// prior is "its state is not Possible" at pop time, and its edges go through
// mark() in word order. mark(): a hit on a Reachable block only clears its
// heuristic when the pointer is a start pointer; otherwise a start pointer, or
// an interior one (whose heuristic field is then overwritten with the test's
// answer, possibly none), makes the block Reachable and pushes it when the
// prior is definite and the pointer is strong, else an Unreached block
// becomes Possible and is pushed. push() does nothing for a pending block.
//
// Phase 2 (GatherCliques): each block still Unreached, in ascending address
// order, leads a clique: it is pushed, and every block reached from a popped
// one through any pointer that is still Unreached (and is not the leader)
// joins: it becomes IndirectLeak, is pushed, and its size plus whatever it had
// gathered as an earlier leader moves to the leader's indirect bytes.
//
// The heuristic field depends on this exact order (spec 6.5), so nothing here
// is reordered. Allocates the stack (4 bytes a block); not thread-safe.
#ifndef HEAPREC_RECORDER_LEAKSCAN_MARKING_H_
#define HEAPREC_RECORDER_LEAKSCAN_MARKING_H_

#include <cstdint>
#include <span>
#include <vector>

#include "recorder/leakscan/big_vector.h"
#include "recorder/leakscan/pointer_graph.h"
#include "recorder/leakscan/scan_types.h"

namespace heaprec::recorder::leakscan {

// memcheck's LC_Extra in a byte: state (2 bits; Unreached is 0 so that a
// zeroed array is the initial state), pending (1 bit), heuristic (3 bits),
// and how many times phase 1 scanned the block (2 bits; at most twice: as
// Possible, then as Reachable), for the "Checked" count only.
class BlockStates {
 public:
  enum State : uint8_t { kUnreached = 0, kPossible = 1, kReachable = 2, kIndirectLeak = 3 };

  explicit BlockStates(size_t n) : bits_(n, 0) {}

  size_t size() const { return bits_.size(); }
  State state(uint32_t i) const { return static_cast<State>(bits_[i] & 3u); }
  void set_state(uint32_t i, State s) { bits_[i] = static_cast<uint8_t>((bits_[i] & ~3u) | s); }
  bool pending(uint32_t i) const { return (bits_[i] & 4u) != 0; }
  void set_pending(uint32_t i, bool p) {
    bits_[i] = static_cast<uint8_t>(p ? bits_[i] | 4u : bits_[i] & ~4u);
  }
  Heuristic heuristic(uint32_t i) const { return static_cast<Heuristic>(bits_[i] >> 3 & 7u); }
  void set_heuristic(uint32_t i, Heuristic h) {
    bits_[i] = static_cast<uint8_t>((bits_[i] & ~0x38u) | (static_cast<unsigned>(h) << 3));
  }
  unsigned scans(uint32_t i) const { return bits_[i] >> 6; }
  void count_scan(uint32_t i) {
    if (scans(i) < 3) bits_[i] = static_cast<uint8_t>(bits_[i] + 0x40);
  }

 private:
  BigVector<uint8_t> bits_;
};

struct MarkStats {
  uint64_t pops = 0;           // blocks scanned in phase 1 (rescans included)
  uint64_t scanned_words = 0;  // root words + words of every phase-1 block scan:
                               // memcheck's "Checked N bytes" is 8 times this
};

// Phase 1. root_words: the aligned words read in root ranges (for the
// "Checked" count only).
// reachable_order (may be null) receives each block that ends Reachable,
// once, when it is scanned as Reachable.
void MarkFromRoots(const PointerGraph& graph, std::span<const LiveBlock> blocks,
                   uint64_t root_words, BlockStates* states, MarkStats* stats,
                   BigVector<uint32_t>* reachable_order);

// Phase 2. indirect_bytes (one per block) receives each definitely lost
// block's clique size; 0 elsewhere.
void GatherCliques(const PointerGraph& graph, std::span<const LiveBlock> blocks,
                   BlockStates* states, std::vector<uint64_t>* indirect_bytes);

}  // namespace heaprec::recorder::leakscan

#endif  // HEAPREC_RECORDER_LEAKSCAN_MARKING_H_
