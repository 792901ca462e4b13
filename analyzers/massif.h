// MassifAnalyzer: the snapshots of the live heap that `heapreplay --export
// massif` writes (massif_text.h), taken as valgrind's massif takes them:
//   - regular snapshots evenly in time: one at each multiple of an interval
//     (from 1 ms); when kMaxRegular are taken, every other one is dropped
//     and the interval doubles (so 50 to 100 remain, as massif keeps), and
//     every kDetailedEvery-th of them (by its multiple of the interval)
//     keeps the tree of what each stack holds;
//   - one at every marker (heaprec_mark, signals), detailed;
//   - the peak (the highest live bytes: PeakAnalyzer's), detailed;
//   - one at the end of the pass, detailed.
// Each snapshot is the state just before an event (or after the last one),
// so its bytes are exactly what was live then. The live bytes per stack are
// PeakAnalyzer's (its live() and, for the peak, Sites()), not counted again:
// give it the PeakAnalyzer added to the same Analysis.
// An Analyzer; not thread-safe; memory: the detailed snapshots' live stacks.
#ifndef HEAPREC_ANALYZERS_MASSIF_H_
#define HEAPREC_ANALYZERS_MASSIF_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analyzers/analyzer.h"
#include "analyzers/peak.h"
#include "analyzers/site.h"

namespace heaprec::analyzers {

struct MassifSnapshot {
  uint64_t time_ns = 0;
  // Orders snapshots with equal times: 2*seq before the event seq, 2*seq+1
  // after it.
  uint64_t order = 0;
  uint64_t bytes = 0;  // live bytes
  bool detailed = false;
  bool peak = false;
  std::string why;          // "marker LABEL", "peak", "end" or "" (regular)
  std::vector<Site> sites;  // detailed: live bytes and blocks per stack
};

class MassifAnalyzer : public Analyzer {
 public:
  static constexpr size_t kMaxRegular = 100;
  static constexpr uint64_t kDetailedEvery = 10;
  static constexpr uint64_t kFirstIntervalNs = 1000000;  // 1 ms

  explicit MassifAnalyzer(const PeakAnalyzer* peak) : peak_(peak) {}

  void OnMarker(const format::Marker& m) override;
  bool WantsBeforeEvent() const override { return true; }
  void BeforeEvent(const format::Event& e, const LiveHeap& heap) override;
  void OnEvent(const format::Event& e, const HeapChange& c, const LiveHeap& heap) override;

  // Every snapshot in time order, with the peak's and the end's (call after
  // the pass).
  std::vector<MassifSnapshot> Snapshots() const;
  uint64_t interval_ns() const { return interval_ns_; }

 private:
  struct Regular {
    uint64_t k = 0;  // time = k * interval
    MassifSnapshot snapshot;
  };
  MassifSnapshot Take(uint64_t time_ns, uint64_t order, bool detailed) const;
  void Cull();

  const PeakAnalyzer* peak_;
  uint64_t interval_ns_ = kFirstIntervalNs;
  uint64_t next_k_ = 0;  // the next regular snapshot is at next_k_ * interval
  std::vector<Regular> regular_;
  std::vector<MassifSnapshot> markers_;
  uint64_t live_bytes_ = 0;  // after the last event
  uint64_t last_time_ns_ = 0, last_seq_ = 0;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_MASSIF_H_
