// Diff: what grew between two moments of one trace (--from A --to B) or
// between a base trace and this one (--base OTHER.zst), by call stack, like
// `pprof --base`: per stack, the live bytes and blocks after minus before.
//
// Stacks are matched by their symbolized frames (FrameKey), not by stack id
// or address, so that two traces of the same program match although ids and
// load addresses differ (address space layout randomisation). Sites whose
// frames are equal merge.
// LiveSnapshot is an Analyzer that takes the per-stack live totals at a
// moment (the end of the pass if the moment is never reached).
// Not thread-safe; memory proportional to distinct stacks.
#ifndef HEAPREC_ANALYZERS_DIFF_H_
#define HEAPREC_ANALYZERS_DIFF_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzers/analyzer.h"
#include "analyzers/moment.h"
#include "analyzers/stack_totals.h"
#include "analyzers/symbol_table.h"

namespace heaprec::analyzers {

struct DiffSite {
  int64_t bytes = 0;  // after - before
  int64_t count = 0;  // blocks, after - before
  uint64_t before_bytes = 0, after_bytes = 0;
  std::vector<Frame> stack;  // innermost first
};

// What identifies a frame across traces and moments: a named frame by its
// function, file, line, module name and whether it is inlined; a frame
// without a name by its module's build-id (else the module's name) and its
// offset in the module, which stay the same from run to run of one binary;
// only a frame outside every module by its address. Never the absolute
// address of a frame in a module.
std::string FrameKey(const Frame& f);

// Sites that changed, largest growth first, then the largest shrink last.
std::vector<DiffSite> DiffSites(const std::vector<Site>& before, const SymbolTable& before_symbols,
                                const std::vector<Site>& after, const SymbolTable& after_symbols);

class LiveSnapshot : public Analyzer {
 public:
  explicit LiveSnapshot(const Moment& at) : watch_(at) {}
  // For a pass that starts from a checkpoint (heapreplay's trace index):
  // the totals of the blocks live in `heap` (restored there) before any
  // event is read.
  void StartFrom(const LiveHeap& heap);
  // For a moment taken by another pass (heapreplay's --diff from two
  // checkpoints): these are the sites, watch says where it was reached, and
  // the events of this pass change nothing.
  void Adopt(std::vector<Site> sites, const MomentWatch& watch);
  bool adopted() const { return adopted_; }
  void OnMarker(const format::Marker& m) override;
  bool EventsInBatches() const override { return true; }
  void OnEvents(const format::EventSpan& events, const HeapChange* changes,
                const LiveHeap& heap) override;

  // Live sites at the moment; at the end of the pass if it was not reached
  // (or is "end").
  std::vector<Site> Sites() const;
  const MomentWatch& watch() const { return watch_; }

 private:
  void One(const format::Event& e, const HeapChange& c);
  MomentWatch watch_;
  StackTotals live_;
  std::optional<std::vector<Site>> taken_;
  bool adopted_ = false;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_DIFF_H_
