// SegmentVtableOracle: memcheck's vtable test over a segment map
// (vtable_oracle.h; mc_leakcheck.c 615-677 at VALGRIND_3_19_0).
#include "recorder/leakscan/vtable_oracle.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <utility>

namespace heaprec::recorder::leakscan {

namespace {

constexpr uint64_t kVtableMaxCheck = 20;  // memcheck's VTABLE_MAX_CHECK: 21 words

}  // namespace

SegmentVtableOracle::SegmentVtableOracle(std::vector<Segment> segments, MemorySource* memory)
    : segments_(std::move(segments)), memory_(memory) {}

std::string SegmentVtableOracle::CheckSegments(const std::vector<Segment>& segments) {
  for (size_t i = 0; i < segments.size(); ++i) {
    if (segments[i].end <= segments[i].start) return "a segment is empty or ends before it starts";
    if (i > 0 && segments[i].start < segments[i - 1].end) {
      return "segments must be sorted by address and must not overlap";
    }
  }
  return {};
}

const Segment* SegmentVtableOracle::Find(uint64_t address) const {
  auto it = std::upper_bound(segments_.begin(), segments_.end(), address,
                             [](uint64_t a, const Segment& s) { return a < s.start; });
  if (it == segments_.begin()) return nullptr;
  --it;
  return address < it->end ? &*it : nullptr;
}

bool SegmentVtableOracle::ReadWord(uint64_t address, uint64_t* word) {
  std::byte bytes[8];
  const ReadRequest request{address, 8, bytes};
  bool ok = false;
  memory_->Read(std::span<const ReadRequest>(&request, 1), std::span<bool>(&ok, 1));
  ++reads_;
  if (ok) std::memcpy(word, bytes, 8);
  return ok;
}

bool SegmentVtableOracle::IsVtable(uint64_t address) {
  auto it = cache_.find(address);
  if (it != cache_.end()) return it->second;
  const bool answer = Compute(address);
  cache_.emplace(address, answer);
  return answer;
}

bool SegmentVtableOracle::Compute(uint64_t address) {
  const Segment* seg = Find(address);
  if (seg == nullptr || !seg->file_backed || !seg->readable) return false;
  // memcheck: scan_max = ptr + 20 words, but at most seg->end - 8 where its
  // seg->end is the last byte (inclusive), so the segment's last word is never
  // looked at.
  uint64_t scan_max = address + kVtableMaxCheck * 8;
  const uint64_t last_byte = seg->end - 1;
  if (last_byte < 8) return false;
  if (scan_max > last_byte - 8) scan_max = last_byte - 8;
  if (scan_max < address) return false;
  const uint64_t words = (scan_max - address) / 8 + 1;

  uint64_t table[kVtableMaxCheck + 1];
  std::byte* bytes = reinterpret_cast<std::byte*>(table);
  const ReadRequest request{address, words * 8, bytes};
  bool ok = false;
  memory_->Read(std::span<const ReadRequest>(&request, 1), std::span<bool>(&ok, 1));
  ++reads_;
  int found = 0;
  for (uint64_t k = 0; k < words; ++k) {
    uint64_t word = table[k];
    // memcheck reads word by word and gives up at the first fault; with the
    // whole table unreadable, so do we, one word at a time.
    if (!ok && !ReadWord(address + 8 * k, &word)) return false;
    if (word == 0) continue;  // memcheck: "NULL fn pointer. Seems it can happen in vtable."
    const Segment* target = Find(word);
    if (target == nullptr || !target->file_backed || !target->executable) return false;
    if (++found == 2) return true;
  }
  return false;
}

}  // namespace heaprec::recorder::leakscan
