// MassifAnalyzer: the snapshots of the live heap that `heapreplay --export
// massif` writes (massif_text.h), taken as valgrind's massif takes them:
//   - regular snapshots evenly in time: one at each multiple of an interval
//     (from 1 ms, to the last event or RSS sample); when kMaxRegular are
//     taken, every other one is dropped and the interval doubles (so 50 to
//     100 remain, as massif keeps), and every kDetailedEvery-th of them (by
//     its multiple of the interval) keeps the tree of what each stack holds;
//   - one at every marker (heaprec_mark, signals), detailed;
//   - the peak (the highest live bytes: PeakAnalyzer's), detailed;
//   - one at the end of the pass, detailed.
// Each snapshot is the state just before an event (or after the last one),
// so its bytes are exactly what was live then. The live bytes per stack are
// PeakAnalyzer's (its live() and, for the peak, Sites()), not counted again:
// give it the PeakAnalyzer added to the same Analysis.
//
// With RSS samples (format 3.4; a heaptrack recording's `R` lines), each
// snapshot also has the resident memory the heap lives in: the anonymous
// RSS (RssAnon: the heap, stacks, anonymous mappings; code and mapped files
// are RssFile, shared memory RssShmem, neither heap), or all of it when the
// sample does not tell kinds apart (RssSample::unsplit_bytes). Its
// extra_bytes (massif's mem_heap_extra_B) are that memory beyond the live
// bytes, 0 where the heap is larger (memory allocated but not yet touched,
// or a sampled trace's estimate). Which sample: the nearest in time,
// preferring one that saw the heap as the snapshot shows it (samples come
// every ~10 ms):
//   - the latest taken at or before the snapshot, if the heap has not
//     changed since; else the first taken after it, if the heap has not
//     changed by then (so a snapshot just after a large free does not show
//     the freed memory as extra); else the latest before it; none: 0;
//   - for the peak, the highest taken while the heap stood at its peak, with
//     the one just before it and, if none came meanwhile, the first after:
//     RssTrack's rule for the summary's RSS at the heap's peak (rss.h), as
//     memory is resident only once the program touches it, after the
//     allocation that made the peak returned.
// An Analyzer; not thread-safe; memory: the detailed snapshots' live stacks.
#ifndef HEAPREC_ANALYZERS_MASSIF_H_
#define HEAPREC_ANALYZERS_MASSIF_H_

#include <cstdint>
#include <optional>
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
  uint64_t bytes = 0;        // live bytes
  uint64_t extra_bytes = 0;  // resident (anonymous) memory beyond them, see above
  bool detailed = false;
  bool peak = false;
  std::string why;          // "marker LABEL", "peak", "end" or "" (regular)
  std::vector<Site> sites;  // detailed: live bytes and blocks per stack
};

// What the snapshots' extra_bytes were measured against.
enum class MassifResident {
  kNone,       // no RSS sample in the trace: extra 0
  kAnonymous,  // RssAnon (heaprec's samples)
  kUnsplit,    // all resident memory (a heaptrack recording's)
};

class MassifAnalyzer : public Analyzer {
 public:
  static constexpr size_t kMaxRegular = 100;
  static constexpr uint64_t kDetailedEvery = 10;
  static constexpr uint64_t kFirstIntervalNs = 1000000;  // 1 ms

  explicit MassifAnalyzer(const PeakAnalyzer* peak) : peak_(peak) {}

  void OnMarker(const format::Marker& m) override;
  void OnRssSample(const format::RssSample& s, const LiveHeap& heap) override;
  bool WantsBeforeEvent() const override { return true; }
  void BeforeEvent(const format::Event& e, const LiveHeap& heap) override;
  void OnEvent(const format::Event& e, const HeapChange& c, const LiveHeap& heap) override;

  // Every snapshot in time order, with the peak's and the end's (call after
  // the pass).
  std::vector<MassifSnapshot> Snapshots() const;
  uint64_t interval_ns() const { return interval_ns_; }
  MassifResident resident() const { return resident_kind_; }

 private:
  struct Regular {
    uint64_t k = 0;  // time = k * interval
    MassifSnapshot snapshot;
    bool pending = false;  // its extra may still take the next sample (above)
  };
  struct Marked {
    MassifSnapshot snapshot;
    bool pending = false;
  };
  // A snapshot of the heap now, its extra from the latest sample; *pending
  // if that sample saw another heap (or there is none yet).
  MassifSnapshot Take(uint64_t time_ns, uint64_t order, bool detailed, bool* pending);
  // The regular snapshots due at times before (or, if `at`, at) time_ns.
  void TakeRegular(uint64_t time_ns, bool at, uint64_t order);
  // Ends the pending snapshots (all of the current heap: the newest of each
  // list), giving them `resident` if set.
  void Settle(std::optional<uint64_t> resident);
  void Cull();

  const PeakAnalyzer* peak_;
  uint64_t interval_ns_ = kFirstIntervalNs;
  uint64_t next_k_ = 0;  // the next regular snapshot is at next_k_ * interval
  std::vector<Regular> regular_;
  std::vector<Marked> markers_;
  uint64_t live_bytes_ = 0;  // after the last event
  uint64_t last_time_ns_ = 0, last_seq_ = 0;
  // RSS: the latest sample's resident memory, and whether the heap changed
  // since; for the end, the latest before the last event and the first
  // after it; for the peak, RssTrack's rule (rss.h).
  MassifResident resident_kind_ = MassifResident::kNone;
  std::optional<uint64_t> resident_, resident_at_last_event_, resident_after_last_event_;
  std::optional<uint64_t> resident_at_peak_;
  bool heap_changed_since_sample_ = true;  // no sample yet
  bool any_pending_ = false;
  uint64_t heap_peak_bytes_ = 0;
  bool in_peak_ = false, after_peak_wanted_ = false;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_MASSIF_H_
