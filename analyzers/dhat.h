// DhatAnalyzer: per call stack, what valgrind's DHAT (--mode=heap) reports
// for a program point, for `heapreplay --export dhat` (dhat_json.h):
//   total bytes and blocks made there; the total lifetime of those blocks
//   (a block still live at the end lives until the last event); the most
//   bytes live at once there and the blocks live at that moment; bytes and
//   blocks live at the global peak and at the end.
// Lifetimes need no birth time per block: a stack's total lifetime is the
// sum of its blocks' release times (the end for those still live) minus the
// sum of their making times, both summed as events come.
// Live bytes per stack, the peak and the end are PeakAnalyzer's: add that
// PeakAnalyzer to the same Analysis before this one.
// An Analyzer; not thread-safe; memory proportional to distinct stacks.
#ifndef HEAPREC_ANALYZERS_DHAT_H_
#define HEAPREC_ANALYZERS_DHAT_H_

#include <cstdint>
#include <vector>

#include "analyzers/analyzer.h"
#include "analyzers/peak.h"

namespace heaprec::analyzers {

// One program point, DHAT's names in the comments; times in ns.
struct DhatSite {
  uint32_t stack = 0;
  uint64_t total_bytes = 0, total_blocks = 0;  // tb, tbk
  uint64_t total_lifetime_ns = 0;              // tl
  uint64_t max_bytes = 0, max_blocks = 0;      // mb, mbk
  uint64_t peak_bytes = 0, peak_blocks = 0;    // gb, gbk
  uint64_t end_bytes = 0, end_blocks = 0;      // eb, ebk
};

class DhatAnalyzer : public Analyzer {
 public:
  explicit DhatAnalyzer(const PeakAnalyzer* peak) : peak_(peak) {}

  void OnEvent(const format::Event& e, const HeapChange& c, const LiveHeap& heap) override;

  // Every stack that made a block (call after the pass).
  std::vector<DhatSite> Sites() const;
  uint64_t end_ns() const { return last_time_ns_; }
  uint64_t peak_ns() const { return peak_->peak_time_ns(); }

 private:
  struct PerStack {
    uint64_t total_bytes = 0, total_blocks = 0;
    __int128 lifetime_ns = 0;  // releases' times minus makings' times, per block
    uint64_t max_bytes = 0, max_blocks = 0;
  };
  PerStack& At(uint32_t stack);

  const PeakAnalyzer* peak_;
  std::vector<PerStack> stacks_;
  uint64_t last_time_ns_ = 0;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_DHAT_H_
