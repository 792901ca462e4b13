// SummaryAnalyzer: one pass over the events for the numbers every report
// starts with (DESIGN.md's "summary"): allocations, frees, bytes allocated,
// the peak of live bytes and when it happened, what is still live at the end
// (leaked), temporaries (heaptrack's definition: an allocation freed with no
// other allocation in between) and the duration. Owns the LiveHeap the leak
// report groups.
// A TraceVisitor; not thread-safe; memory proportional to live blocks.
#ifndef HEAPREC_ANALYZERS_SUMMARY_H_
#define HEAPREC_ANALYZERS_SUMMARY_H_

#include <cstdint>
#include <optional>

#include "analyzers/live_heap.h"
#include "format/trace_visitor.h"

namespace heaprec::analyzers {

class SummaryAnalyzer : public format::TraceVisitor {
 public:
  void OnProcess(const format::ProcessInfo& p) override { process_ = p; }
  void OnEvent(const format::Event& e) override;
  void OnEnd(const format::EndRecord& e) override { end_ = e; }

  uint64_t allocations() const { return allocations_; }
  uint64_t frees() const { return frees_; }
  uint64_t bytes_allocated() const { return bytes_allocated_; }
  uint64_t peak_bytes() const { return peak_bytes_; }
  uint64_t peak_time_ns() const { return peak_time_ns_; }
  uint64_t peak_seq() const { return peak_seq_; }
  uint64_t temporaries() const { return temporaries_; }
  uint64_t duration_ns() const { return last_time_ns_; }
  const LiveHeap& heap() const { return heap_; }
  const std::optional<format::ProcessInfo>& process() const { return process_; }
  const std::optional<format::EndRecord>& end() const { return end_; }

 private:
  LiveHeap heap_;
  uint64_t allocations_ = 0, frees_ = 0, bytes_allocated_ = 0;
  uint64_t peak_bytes_ = 0, peak_time_ns_ = 0, peak_seq_ = 0;
  uint64_t temporaries_ = 0, last_time_ns_ = 0;
  uint64_t last_allocated_ = 0;  // block of the latest allocation, until another
  std::optional<format::ProcessInfo> process_;
  std::optional<format::EndRecord> end_;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_SUMMARY_H_
