// Frees that do not match their allocation (mismatches.h).
#include "analyzers/mismatches.h"

#include <algorithm>

namespace heaprec::analyzers {
namespace {

constexpr size_t kRemembered = 1 << 16;

// Sized frees name the size: the delete(void*, size_t) family and free_sized.
bool NamesSize(format::Api api) {
  using format::Api;
  switch (api) {
    case Api::kDeleteSized:
    case Api::kDeleteArraySized:
    case Api::kDeleteSizedAligned:
    case Api::kDeleteArraySizedAligned:
    case Api::kFreeSized:
    case Api::kFreeAlignedSized:
      return true;
    default:
      return false;
  }
}

}  // namespace

const char* MismatchKindName(MismatchKind k) {
  switch (k) {
    case MismatchKind::kFamily:
      return "family";
    case MismatchKind::kSize:
      return "size";
    case MismatchKind::kUnknown:
      return "unknown";
    case MismatchKind::kDoubleFree:
      return "double_free";
  }
  return "?";
}

MismatchAnalyzer::MismatchAnalyzer() : released_(kRemembered) {}

void MismatchAnalyzer::Report(const Mismatch& m) {
  ++total_;
  const Key key{static_cast<int>(m.kind),
                static_cast<int>(m.alloc_api),
                static_cast<int>(m.free_api),
                m.alloc_stack,
                m.free_stack,
                m.first_free_stack};
  auto [it, inserted] = found_.try_emplace(key, m);
  if (!inserted) {
    it->second.count += m.count;
    it->second.bytes += m.bytes;
  }
}

__attribute__((always_inline)) inline void MismatchAnalyzer::One(const format::Event& e,
                                                                 const HeapChange& c) {
  const format::EventKind kind = e.kind();
  if (kind != format::EventKind::kFree && kind != format::EventKind::kRealloc) return;
  if (c.released != 0) {
    const LiveBlock& b = c.released_block;
    if (format::FamilyOf(b.api) != format::FamilyOf(e.api)) {
      Report({MismatchKind::kFamily, b.api, e.api, b.stack, e.stack, 0, 1, b.size, 0, 0, e.seq});
    } else if (kind == format::EventKind::kFree && NamesSize(e.api) && e.size != b.size) {
      Report({MismatchKind::kSize, b.api, e.api, b.stack, e.stack, 0, 1, b.size, e.size, 0, e.seq});
    }
    released_[c.released % kRemembered] = {c.released, b.stack, e.stack, b.api, b.size};
    return;
  }
  if (!c.unknown_release) return;
  const uint64_t block = kind == format::EventKind::kFree ? e.block : e.old_block;
  if (block == 0) {
    const uint64_t address = kind == format::EventKind::kFree ? e.address : e.old_address;
    Report({MismatchKind::kUnknown, e.api, e.api, 0, e.stack, 0, 1, 0, 0, address, e.seq});
    return;
  }
  Mismatch m{MismatchKind::kDoubleFree, e.api, e.api, 0, e.stack, 0, 1, 0, 0, 0, e.seq};
  const Released& r = released_[block % kRemembered];
  if (r.block == block) {
    m.alloc_api = r.api;
    m.alloc_stack = r.alloc_stack;
    m.first_free_stack = r.free_stack;
    m.bytes = r.size;
  }
  Report(m);
}

void MismatchAnalyzer::OnEvents(const format::EventSpan& events, const HeapChange* changes,
                                const LiveHeap&) {
  format::ForEachEvent(
      events, [&](const format::Event& e, size_t i)
                  __attribute__((always_inline)) { One(e, changes[i]); });
}

std::vector<Mismatch> MismatchAnalyzer::Mismatches() const {
  std::vector<Mismatch> out;
  for (const auto& [key, m] : found_) out.push_back(m);
  std::sort(out.begin(), out.end(), [](const Mismatch& a, const Mismatch& b) {
    if (a.count != b.count) return a.count > b.count;
    return a.first_seq < b.first_seq;
  });
  return out;
}

}  // namespace heaprec::analyzers
