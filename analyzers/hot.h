// HotAnalyzer: per call stack, the allocation calls and bytes allocated
// (heapreplay --hot, the "frequent allocation" view; calls as valgrind and
// heaptrack count them, a realloc included: Event::CountsAsAllocation) and
// the temporaries (--temporaries: heaptrack's, exactly, temporaries.h; the
// same as SummaryAnalyzer's count), each at the site of the block freed.
// An Analyzer; not thread-safe; memory proportional to distinct stacks.
#ifndef HEAPREC_ANALYZERS_HOT_H_
#define HEAPREC_ANALYZERS_HOT_H_

#include <cstdint>
#include <vector>

#include "analyzers/analyzer.h"
#include "analyzers/estimate.h"
#include "analyzers/stack_totals.h"

namespace heaprec::analyzers {

class HotAnalyzer : public Analyzer {
 public:
  bool EventsInBatches() const override { return true; }
  void OnEvents(const format::EventSpan& events, const HeapChange* changes,
                const LiveHeap& heap) override;

  // count = allocation calls, bytes = bytes they asked for; by count.
  std::vector<Site> HotSites() const { return allocated_.Sorted(Metric::kCount); }
  // count = temporaries, bytes = their sizes; by count.
  std::vector<Site> TemporarySites() const { return temporary_.Sorted(Metric::kCount); }
  const StackTotals& allocated() const { return allocated_; }
  uint64_t temporaries() const { return temporaries_; }

 private:
  friend class AnalysisState;  // analysis_state.h
  friend class CorePass;       // core_pass.h
  __attribute__((always_inline)) void One(const format::Event& e, const HeapChange& c) {
    if (e.CountsAsAllocation()) {
      const Estimate est = EstimateOf(e.size, e.weight, e.block);
      allocated_.Add(e.stack, est.bytes, est.count);
    }
    if (c.temporary) {
      temporary_.Add(c.released_block.stack, c.released_est.bytes, c.released_est.count);
      temporaries_ += c.released_est.count;
    }
  }
  StackTotals allocated_, temporary_;
  uint64_t temporaries_ = 0;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_HOT_H_
