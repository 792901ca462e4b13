// The leak scan's vocabulary: live heap blocks, roots and their ids, the four
// leak kinds, memcheck's heuristics, and the filter a caller may put on
// pointer values. Shared by the engine's parts (recorder/leakscan/) and by
// its caller (the launcher, which fills these from the traced process).
//
// Plain data and one interface; header-only, no allocation, no state.
// The meaning of every name is memcheck 3.19's (notes: the leak spec,
// sections 1, 2 and 6).
#ifndef HEAPREC_RECORDER_LEAKSCAN_SCAN_TYPES_H_
#define HEAPREC_RECORDER_LEAKSCAN_SCAN_TYPES_H_

#include <cstdint>

namespace heaprec::recorder::leakscan {

// A live heap block: its address and the size the program asked for (what
// the LEAK SUMMARY adds up). Callers pass them sorted by address and not
// overlapping; a block of size 0 covers its first byte for pointer lookup.
struct LiveBlock {
  uint64_t address = 0;
  uint64_t size = 0;
};

// What a root is (a global variable's range, a thread's stack, a thread's
// registers, ...): the caller's numbering. 0 and kSeveralRoots are reserved.
using RootId = uint32_t;
inline constexpr RootId kNoRoot = 0;                  // not still reachable
inline constexpr RootId kSeveralRoots = 0xffffffffu;  // reachable, no one root dominates

// [start, end): memory scanned as a root, 8-aligned words lying wholly inside.
struct RootRange {
  uint64_t start = 0;
  uint64_t end = 0;
  RootId root = kNoRoot;
};

// A register value (no memory behind it): scanned after every root range.
struct RootValue {
  uint64_t value = 0;
  RootId root = kNoRoot;
};

enum class LeakKind : uint8_t {
  kDefinitelyLost = 0,
  kIndirectlyLost = 1,
  kPossiblyLost = 2,
  kStillReachable = 3,
};
inline constexpr int kLeakKindCount = 4;

// memcheck's LeakCheckHeuristic, with its values: the order in which they are
// tried is the order of the values (the first match wins).
enum class Heuristic : uint8_t {
  kNone = 0,
  kStdString = 1,
  kLength64 = 2,
  kNewArray = 3,
  kMultipleInheritance = 4,
};
inline constexpr int kHeuristicCount = 5;  // with kNone

// --leak-check-heuristics=<set>. memcheck's default is all four.
class HeuristicSet {
 public:
  static constexpr HeuristicSet All() { return HeuristicSet(0x1e); }
  static constexpr HeuristicSet None() { return HeuristicSet(0); }
  constexpr HeuristicSet With(Heuristic h) const {
    return HeuristicSet(bits_ | (1u << static_cast<unsigned>(h)));
  }
  constexpr bool Contains(Heuristic h) const {
    return h != Heuristic::kNone && (bits_ >> static_cast<unsigned>(h) & 1u) != 0;
  }
  constexpr bool Empty() const { return bits_ == 0; }

 private:
  explicit constexpr HeuristicSet(uint32_t bits) : bits_(bits) {}
  uint32_t bits_;
};

// The block a candidate pointer value falls in.
struct BlockRef {
  uint32_t index = 0;  // in the caller's block array
  uint64_t address = 0;
  uint64_t size = 0;
};

// Values that must not count as pointers although they fall in a block (the
// launcher drops glibc chunk headers inside a live block's tail: spec
// section 12). Called once per such value found (roots, registers, block
// contents), never for values that hit no block; must be pure.
class PointerFilter {
 public:
  virtual ~PointerFilter() = default;
  virtual bool Ignore(uint64_t value, const BlockRef& hit) const = 0;
};

}  // namespace heaprec::recorder::leakscan

#endif  // HEAPREC_RECORDER_LEAKSCAN_SCAN_TYPES_H_
