// SummaryAnalyzer: the numbers every report starts with (docs/DESIGN.md's
// "summary"): allocations, frees, bytes allocated, the peak of live bytes and
// when it happened, temporaries (heaptrack's definition: an allocation freed
// with no other allocation in between) and the duration. What is still live
// (leaked) is the Analysis's LiveHeap at the end.
// An Analyzer; not thread-safe; constant memory.
#ifndef HEAPREC_ANALYZERS_SUMMARY_H_
#define HEAPREC_ANALYZERS_SUMMARY_H_

#include <cstdint>

#include "analyzers/analyzer.h"

namespace heaprec::analyzers {

class SummaryAnalyzer : public Analyzer {
 public:
  void OnEvent(const format::Event& e, const HeapChange& c, const LiveHeap& heap) override;

  uint64_t allocations() const { return allocations_; }
  uint64_t frees() const { return frees_; }
  uint64_t bytes_allocated() const { return bytes_allocated_; }
  uint64_t peak_bytes() const { return peak_bytes_; }
  uint64_t peak_time_ns() const { return peak_time_ns_; }
  uint64_t peak_seq() const { return peak_seq_; }
  uint64_t temporaries() const { return temporaries_; }
  uint64_t duration_ns() const { return last_time_ns_; }
  uint64_t events() const { return events_; }

 private:
  uint64_t allocations_ = 0, frees_ = 0, bytes_allocated_ = 0, events_ = 0;
  uint64_t peak_bytes_ = 0, peak_time_ns_ = 0, peak_seq_ = 0;
  uint64_t temporaries_ = 0, last_time_ns_ = 0;
  uint64_t last_allocated_ = 0;  // block of the latest allocation, until a free
};

// True if the event counts as an allocation call: it made a block, and is
// not a realloc that resized its block (whose block is renumbered but which
// allocated nothing new). malloc & co, realloc(NULL, n) and the new half of a
// moved realloc count.
inline bool IsNewAllocation(const format::Event& e, const HeapChange& c) {
  return c.made != 0 && (e.kind() == format::EventKind::kAlloc || c.released == 0);
}

// True if the event is a free that releases the block made by the latest
// allocation, with no allocation in between (`last_allocated` is that block,
// 0 after any free): heaptrack's temporary.
inline bool IsTemporaryFree(const HeapChange& c, uint64_t last_allocated) {
  return c.released != 0 && c.made == 0 && c.released == last_allocated;
}

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_SUMMARY_H_
