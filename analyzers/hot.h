// HotAnalyzer: per call stack, the allocation calls and bytes allocated
// (heapreplay --hot, the "frequent allocation" view) and the temporaries
// (--temporaries: allocations freed with no other allocation in between,
// heaptrack's definition, the same as SummaryAnalyzer's count).
// An Analyzer; not thread-safe; memory proportional to distinct stacks.
#ifndef HEAPREC_ANALYZERS_HOT_H_
#define HEAPREC_ANALYZERS_HOT_H_

#include <cstdint>
#include <vector>

#include "analyzers/analyzer.h"
#include "analyzers/stack_totals.h"

namespace heaprec::analyzers {

class HotAnalyzer : public Analyzer {
 public:
  void OnEvent(const format::Event& e, const HeapChange& c, const LiveHeap& heap) override;

  // count = allocation calls, bytes = bytes they asked for; by count.
  std::vector<Site> HotSites() const { return allocated_.Sorted(Metric::kCount); }
  // count = temporaries, bytes = their sizes; by count.
  std::vector<Site> TemporarySites() const { return temporary_.Sorted(Metric::kCount); }
  const StackTotals& allocated() const { return allocated_; }
  uint64_t temporaries() const { return temporaries_; }

 private:
  StackTotals allocated_, temporary_;
  uint64_t last_allocated_ = 0;
  uint64_t temporaries_ = 0;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_HOT_H_
