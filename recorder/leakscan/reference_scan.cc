// The slow references (reference_scan.h).
#include "recorder/leakscan/reference_scan.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <optional>
#include <set>

namespace heaprec::recorder::leakscan {

namespace {

enum State { kUnreached, kPossible, kReachable, kIndirect };

// One 8-byte read; nullopt if it fails.
std::optional<uint64_t> Word(MemorySource* m, uint64_t address) {
  std::byte bytes[8];
  ReadRequest r{address, 8, bytes};
  bool ok = false;
  m->Read(std::span<const ReadRequest>(&r, 1), std::span<bool>(&ok, 1));
  if (!ok) return std::nullopt;
  uint64_t v;
  std::memcpy(&v, bytes, 8);
  return v;
}

// find_chunk_for, as in mc_leakcheck.c.
int FindChunkFor(const std::vector<LiveBlock>& b, uint64_t ptr) {
  int lo = 0, hi = static_cast<int>(b.size()) - 1;
  while (lo <= hi) {
    const int mid = (lo + hi) / 2;
    const uint64_t a_lo = b[mid].address;
    uint64_t a_hi = b[mid].address + b[mid].size;
    if (b[mid].size == 0) ++a_hi;
    if (ptr < a_lo) {
      hi = mid - 1;
    } else if (ptr >= a_hi) {
      lo = mid + 1;
    } else {
      return mid;
    }
  }
  return -1;
}

// The values of the valid words of [lo, hi), in order.
std::vector<uint64_t> Words(MemorySource* m, uint64_t lo, uint64_t hi) {
  std::vector<uint64_t> out;
  const uint64_t end = hi & ~uint64_t{7};
  for (uint64_t a = (lo + 7) & ~uint64_t{7}; a + 8 <= end; a += 8) {
    if (auto v = Word(m, a)) out.push_back(*v);
  }
  return out;
}

// The block a value points into, after the filter; -1 if none.
int Hit(const ReferenceInput& in, uint64_t v) {
  const int i = FindChunkFor(in.blocks, v);
  if (i < 0) return -1;
  if (in.filter != nullptr &&
      in.filter->Ignore(
          v, BlockRef{static_cast<uint32_t>(i), in.blocks[i].address, in.blocks[i].size})) {
    return -1;
  }
  return i;
}

// heuristic_reachedness, spec 6.2. A "valid" word is 8-aligned and wholly
// inside the block; reading it may fault (the whole answer is then none).
struct Fault {};
Heuristic H(const ReferenceInput& in, uint64_t ptr, const LiveBlock& ch) {
  auto valid = [&](uint64_t a) {
    return a % 8 == 0 && a >= ch.address && a + 8 <= ch.address + ch.size;
  };
  auto read = [&](uint64_t a) {
    auto v = Word(in.memory, a);
    if (!v) throw Fault();
    return *v;
  };
  try {
    if (in.heuristics.Contains(Heuristic::kStdString)) {
      if (ptr == ch.address + 24 && valid(ch.address + 8)) {
        const uint64_t capacity = read(ch.address + 8);
        if (3 * 8 + capacity + 1 == ch.size && valid(ch.address)) {
          const uint64_t length = read(ch.address);
          if (length <= capacity) return Heuristic::kStdString;
        }
      }
    }
    if (in.heuristics.Contains(Heuristic::kLength64)) {
      if (ptr == ch.address + 8 && valid(ch.address)) {
        const uint64_t size = read(ch.address);
        if (size > 0 && ch.size - 8 == size) return Heuristic::kLength64;
      }
    }
    if (in.heuristics.Contains(Heuristic::kNewArray)) {
      if (ptr == ch.address + 8 && valid(ch.address)) {
        const uint64_t nr = read(ch.address);
        if (nr > 0 && (ch.size - 8) % nr == 0) return Heuristic::kNewArray;
      }
    }
    if (in.heuristics.Contains(Heuristic::kMultipleInheritance) && in.vtables != nullptr) {
      if (ptr % 8 == 0 && valid(ptr)) {
        const uint64_t inner = read(ptr);
        if (inner % 8 == 0 && inner >= 4096 && valid(ch.address)) {
          const uint64_t first = read(ch.address);
          if (first % 8 == 0 && first >= 4096 && in.vtables->IsVtable(inner) &&
              in.vtables->IsVtable(first)) {
            return Heuristic::kMultipleInheritance;
          }
        }
      }
    }
  } catch (const Fault&) {
  }
  return Heuristic::kNone;
}

LeakKind KindOf(int s) {
  switch (s) {
    case kReachable:
      return LeakKind::kStillReachable;
    case kPossible:
      return LeakKind::kPossiblyLost;
    case kIndirect:
      return LeakKind::kIndirectlyLost;
  }
  return LeakKind::kDefinitelyLost;
}

// Section 7.1 on states already set by phase 1.
void Cliques(const ReferenceInput& in, std::vector<int>* state, std::vector<uint64_t>* ind) {
  const size_t n = in.blocks.size();
  std::vector<bool> pend(n, false);
  std::vector<int> stack;
  for (size_t L = 0; L < n; ++L) {
    if ((*state)[L] != kUnreached) continue;
    stack.push_back(static_cast<int>(L));
    pend[L] = true;
    while (!stack.empty()) {
      const int t = stack.back();
      stack.pop_back();
      pend[t] = false;
      for (uint64_t v :
           Words(in.memory, in.blocks[t].address, in.blocks[t].address + in.blocks[t].size)) {
        const int j = Hit(in, v);
        if (j >= 0 && (*state)[j] == kUnreached && j != static_cast<int>(L)) {
          if (!pend[j]) {
            stack.push_back(j);
            pend[j] = true;
          }
          (*ind)[L] += in.blocks[j].size + (*ind)[j];
          (*ind)[j] = 0;
          (*state)[j] = kIndirect;
        }
      }
    }
  }
}

// Every edge of section 5.2: source -1 for a root (with its id), else a block.
struct Edge {
  int source;
  RootId root;
  int target;
  bool strong;
};

std::vector<Edge> AllEdges(const ReferenceInput& in) {
  std::vector<Edge> edges;
  auto add = [&](int source, RootId root, uint64_t v) {
    const int t = Hit(in, v);
    if (t < 0) return;
    const bool strong = v == in.blocks[t].address ||
                        (!in.heuristics.Empty() && H(in, v, in.blocks[t]) != Heuristic::kNone);
    edges.push_back({source, root, t, strong});
  };
  for (const RootRange& r : in.root_ranges) {
    for (uint64_t v : Words(in.memory, r.start, r.end)) add(-1, r.root, v);
  }
  for (const RootValue& r : in.root_values) add(-1, r.root, r.value);
  for (size_t i = 0; i < in.blocks.size(); ++i) {
    for (uint64_t v :
         Words(in.memory, in.blocks[i].address, in.blocks[i].address + in.blocks[i].size)) {
      add(static_cast<int>(i), kNoRoot, v);
    }
  }
  return edges;
}

// Blocks reached from the roots (except `without`) through strong edges from
// roots and reached blocks.
std::vector<bool> StrongReach(const ReferenceInput& in, const std::vector<Edge>& edges,
                              std::optional<RootId> without) {
  std::vector<bool> reached(in.blocks.size(), false);
  bool changed = true;
  while (changed) {
    changed = false;
    for (const Edge& e : edges) {
      if (!e.strong || reached[e.target]) continue;
      const bool from = e.source < 0 ? (!without || e.root != *without) : reached[e.source];
      if (from) {
        reached[e.target] = true;
        changed = true;
      }
    }
  }
  return reached;
}

}  // namespace

ReferenceResult LiteralClassify(const ReferenceInput& in) {
  const size_t n = in.blocks.size();
  std::vector<int> state(n, kUnreached);
  std::vector<Heuristic> heur(n, Heuristic::kNone);
  std::vector<uint64_t> ind(n, 0);
  std::vector<bool> pend(n, false);
  std::vector<int> stack;
  auto push = [&](int i) {
    if (!pend[i]) {
      stack.push_back(i);
      pend[i] = true;
    }
  };
  auto mark = [&](uint64_t v, bool definite) {
    const int i = Hit(in, v);
    if (i < 0) return;
    if (state[i] == kReachable) {
      if (heur[i] != Heuristic::kNone && v == in.blocks[i].address) heur[i] = Heuristic::kNone;
      return;
    }
    int via;
    if (v == in.blocks[i].address) {
      via = kReachable;
    } else if (!in.heuristics.Empty()) {
      heur[i] = H(in, v, in.blocks[i]);
      via = heur[i] != Heuristic::kNone ? kReachable : kPossible;
    } else {
      via = kPossible;
    }
    if (via == kReachable && definite) {
      state[i] = kReachable;
      push(i);
    } else if (state[i] == kUnreached) {
      state[i] = kPossible;
      push(i);
    }
  };
  for (const RootRange& r : in.root_ranges) {
    for (uint64_t v : Words(in.memory, r.start, r.end)) mark(v, true);
  }
  for (const RootValue& r : in.root_values) mark(r.value, true);
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    pend[i] = false;
    const bool d = state[i] != kPossible;
    for (uint64_t v :
         Words(in.memory, in.blocks[i].address, in.blocks[i].address + in.blocks[i].size)) {
      mark(v, d);
    }
  }
  Cliques(in, &state, &ind);
  ReferenceResult out;
  for (size_t i = 0; i < n; ++i) out.kind.push_back(KindOf(state[i]));
  out.heuristic = heur;
  out.indirect = ind;
  return out;
}

ReferenceResult FixpointClassify(const ReferenceInput& in) {
  const size_t n = in.blocks.size();
  const std::vector<Edge> edges = AllEdges(in);
  const std::vector<bool> reachable = StrongReach(in, edges, std::nullopt);
  // Any chain of edges from the roots.
  std::vector<bool> any(n, false);
  bool changed = true;
  while (changed) {
    changed = false;
    for (const Edge& e : edges) {
      if (any[e.target]) continue;
      if (e.source < 0 || any[e.source]) {
        any[e.target] = true;
        changed = true;
      }
    }
  }
  std::vector<int> state(n, kUnreached);
  for (size_t i = 0; i < n; ++i) {
    if (reachable[i]) {
      state[i] = kReachable;
    } else if (any[i]) {
      state[i] = kPossible;
    }
  }
  std::vector<uint64_t> ind(n, 0);
  Cliques(in, &state, &ind);
  ReferenceResult out;
  for (size_t i = 0; i < n; ++i) out.kind.push_back(KindOf(state[i]));
  out.indirect = ind;
  return out;
}

std::vector<RootId> RetentionByRemoval(const ReferenceInput& in) {
  const size_t n = in.blocks.size();
  const std::vector<Edge> edges = AllEdges(in);
  const std::vector<bool> reachable = StrongReach(in, edges, std::nullopt);
  std::vector<RootId> out(n, kNoRoot);
  for (size_t i = 0; i < n; ++i) {
    if (reachable[i]) out[i] = kSeveralRoots;
  }
  std::set<RootId> roots;
  for (const Edge& e : edges) {
    if (e.source < 0) roots.insert(e.root);
  }
  for (const RootId r : roots) {
    const std::vector<bool> without = StrongReach(in, edges, r);
    for (size_t i = 0; i < n; ++i) {
      if (reachable[i] && !without[i]) out[i] = r;
    }
  }
  return out;
}

}  // namespace heaprec::recorder::leakscan
