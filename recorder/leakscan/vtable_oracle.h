// VtableOracle: "does this address look like a vtable?", the test the
// multipleinheritance heuristic applies to both vptrs of a block (memcheck's
// aligned_ptr_above_page0_is_vtable_addr, spec section 6.2). The engine asks
// it only for 8-aligned addresses of at least 4096.
//
// SegmentVtableOracle answers it from the scanned process's memory map and
// memory, as memcheck does: the address must lie in a readable file mapping;
// of the words at address, address+8, ... up to address+160 (and never the
// segment's last word), zero words are skipped, and the first two non-zero
// ones must both point into a file-backed executable mapping (memcheck's
// "file mapping whose code has run", approximated by the x permission, spec
// section 12.6); any other non-zero word first means no. Results are cached
// per address (a program has few vtables and many objects).
//
// Not thread-safe (the cache); allocates (the cache). Called by the engine
// from heuristics.cc, at most twice per distinct candidate.
#ifndef HEAPREC_RECORDER_LEAKSCAN_VTABLE_ORACLE_H_
#define HEAPREC_RECORDER_LEAKSCAN_VTABLE_ORACLE_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "recorder/leakscan/memory_source.h"

namespace heaprec::recorder::leakscan {

class VtableOracle {
 public:
  virtual ~VtableOracle() = default;
  virtual bool IsVtable(uint64_t address) = 0;
};

// One mapping of /proc/PID/maps.
struct Segment {
  uint64_t start = 0;
  uint64_t end = 0;  // exclusive
  bool readable = false;
  bool file_backed = false;  // memcheck's SkFileC
  bool executable = false;   // with file_backed: memcheck's hasT
};

class SegmentVtableOracle : public VtableOracle {
 public:
  // Segments sorted by start, not overlapping (CheckSegments); memory reads
  // the candidate tables (at most 168 bytes a call).
  SegmentVtableOracle(std::vector<Segment> segments, MemorySource* memory);
  bool IsVtable(uint64_t address) override;

  // Empty if segments are usable; otherwise what is wrong.
  static std::string CheckSegments(const std::vector<Segment>& segments);

  uint64_t reads() const { return reads_; }

 private:
  const Segment* Find(uint64_t address) const;
  bool Compute(uint64_t address);
  bool ReadWord(uint64_t address, uint64_t* word);

  std::vector<Segment> segments_;
  MemorySource* memory_;
  std::unordered_map<uint64_t, bool> cache_;
  uint64_t reads_ = 0;
};

}  // namespace heaprec::recorder::leakscan

#endif  // HEAPREC_RECORDER_LEAKSCAN_VTABLE_ORACLE_H_
