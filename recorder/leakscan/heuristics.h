// memcheck's four heuristics (heuristic_reachedness, spec section 6): when an
// interior pointer into a block counts as a start pointer. Pure tests over
// the block's words; the graph builder (pointer_graph.cc) fetches the words
// in batches and applies them once per distinct pointer value.
//
// The tests, in memcheck's order (the first match wins), on amd64 with
// unsigned 64-bit arithmetic, for a block at data of requested size szB:
//   stdstring: value == data+24, capacity = word at data+8,
//              24 + capacity + 1 == szB, length = word at data, length <= capacity;
//   length64:  value == data+8, n = word at data, n > 0, szB - 8 == n;
//   newarray:  value == data+8, n = word at data, n > 0, (szB - 8) % n == 0;
//   multipleinheritance: value 8-aligned, inner = word at value, first = word
//              at data, both 8-aligned and >= 4096, both IsVtable.
// A "word" must be 8-aligned and lie wholly inside [data, data+szB) (outside,
// memcheck finds a red zone: not addressable); every such word is defined
// natively (the one deliberate difference from memcheck: no V bits). A word
// that cannot be read is memcheck's fault: the answer is then none for all
// four, as memcheck's fault catcher gives.
//
// Header-only, no state, no allocation; thread-safe if vtables is.
#ifndef HEAPREC_RECORDER_LEAKSCAN_HEURISTICS_H_
#define HEAPREC_RECORDER_LEAKSCAN_HEURISTICS_H_

#include <cstdint>

#include "recorder/leakscan/scan_types.h"
#include "recorder/leakscan/vtable_oracle.h"

namespace heaprec::recorder::leakscan {

// What a word accessor answers for an address inside the block.
struct BlockWord {
  enum Status : uint8_t { kValue, kUnreadable };
  Status status = kUnreadable;
  uint64_t value = 0;
};

// A word lies wholly inside the block and is aligned (memcheck: valid).
inline bool IsBlockWord(const LiveBlock& b, uint64_t address) {
  return address % 8 == 0 && address >= b.address && address - b.address <= b.size &&
         b.size - (address - b.address) >= 8;
}

// Whether some heuristic of set could accept value (an interior pointer into
// block) before any word is read: the pointers worth fetching words for.
inline bool MayMatchHeuristic(HeuristicSet set, bool have_vtables, uint64_t value,
                              const LiveBlock& block) {
  const uint64_t offset = value - block.address;
  if (offset == 24 && set.Contains(Heuristic::kStdString)) return true;
  if (offset == 8 && (set.Contains(Heuristic::kLength64) || set.Contains(Heuristic::kNewArray))) {
    return true;
  }
  return have_vtables && set.Contains(Heuristic::kMultipleInheritance) &&
         IsBlockWord(block, value) && IsBlockWord(block, block.address);
}

// The heuristic that accepts value, an interior pointer into block
// (block.address < value < block.address + block.size), or kNone.
// word_at(address) -> BlockWord, called only for IsBlockWord addresses.
template <typename WordAt>
Heuristic TestHeuristics(HeuristicSet set, uint64_t value, const LiveBlock& block, WordAt&& word_at,
                         VtableOracle* vtables) {
  const uint64_t data = block.address;
  const uint64_t size = block.size;
  if (set.Contains(Heuristic::kStdString) && value == data + 24 && IsBlockWord(block, data + 8)) {
    const BlockWord capacity = word_at(data + 8);
    if (capacity.status == BlockWord::kUnreadable) return Heuristic::kNone;
    if (24 + capacity.value + 1 == size && IsBlockWord(block, data)) {
      const BlockWord length = word_at(data);
      if (length.status == BlockWord::kUnreadable) return Heuristic::kNone;
      if (length.value <= capacity.value) return Heuristic::kStdString;
    }
  }
  if (set.Contains(Heuristic::kLength64) && value == data + 8 && IsBlockWord(block, data)) {
    const BlockWord n = word_at(data);
    if (n.status == BlockWord::kUnreadable) return Heuristic::kNone;
    if (n.value > 0 && size - 8 == n.value) return Heuristic::kLength64;
  }
  if (set.Contains(Heuristic::kNewArray) && value == data + 8 && IsBlockWord(block, data)) {
    const BlockWord n = word_at(data);
    if (n.status == BlockWord::kUnreadable) return Heuristic::kNone;
    if (n.value > 0 && (size - 8) % n.value == 0) return Heuristic::kNewArray;
  }
  if (set.Contains(Heuristic::kMultipleInheritance) && vtables != nullptr &&
      IsBlockWord(block, value)) {
    const BlockWord inner = word_at(value);
    if (inner.status == BlockWord::kUnreadable) return Heuristic::kNone;
    if (inner.value % 8 == 0 && inner.value >= 4096 && IsBlockWord(block, data)) {
      const BlockWord first = word_at(data);
      if (first.status == BlockWord::kUnreadable) return Heuristic::kNone;
      if (first.value % 8 == 0 && first.value >= 4096 && vtables->IsVtable(inner.value) &&
          vtables->IsVtable(first.value)) {
        return Heuristic::kMultipleInheritance;
      }
    }
  }
  return Heuristic::kNone;
}

}  // namespace heaprec::recorder::leakscan

#endif  // HEAPREC_RECORDER_LEAKSCAN_HEURISTICS_H_
