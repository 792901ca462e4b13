// TraceSummary: one trace reduced to numbers per call site, for the
// end-to-end tests' exact assertions.
//
//   TraceSummary s = SummarizeTrace("/tmp/t.zst");
//   ASSERT_EQ(s.read.status, format::ReadResult::kComplete) << s.read.message;
//   const SiteStats* site = s.Site("make_session");
//   EXPECT_EQ(site->allocations, 10u);  EXPECT_EQ(site->leaked_bytes, 640u);
//
// Contract:
// - A call site is named by the function of the stack's frame 0 (the return
//   address in the function that called the allocation function): the trace's
//   Symbol for that address, its last frame (the real function, not an
//   inlined one). Names are as the trace gives them (demangled C++ names carry
//   their parameter list: "leak_new()"). Events without a stack (stack id 0;
//   the recorder writes frees that way) belong to the site "" (kNoStack); an
//   address without a Symbol or with no frames is named "?0x<hex address>".
//   Several return addresses in one function add up to one site.
// - Counting, per site (and over all events in `total`):
//     calls[api]      calls per Api; a realloc that moved its block is written
//                     as two events ("old freed" then "new allocated", same
//                     thread, stack and api) and counts as ONE call.
//     allocations     alloc-kind events that returned a block.
//     usage_allocs,   valgrind's "total heap usage" (End.allocations and
//     usage_frees     End.frees): every call that returned a block is an
//                     allocation (a realloc in place, or moved, too), every
//                     release of a block a free (free of any non-null
//                     pointer, a realloc's old block, realloc(p, 0)).
//     reallocs        realloc-family calls (moved ones once); moved_reallocs of
//                     them moved the block.
//     failed          alloc or realloc calls that returned no block (not
//                     realloc(p, 0), which frees).
//     bytes           sum of size over alloc and realloc events that returned a
//                     block (End.bytes_allocated).
// - Block lifetimes (a live-block map over the whole trace in seq order): a
//   block is owned by the site that allocated it or last reallocated it. When
//   it is released (free/delete, realloc moving or resizing it, realloc(p, 0))
//   its owning site counts released_blocks, released_by[api of the releasing
//   call] and, if another thread released it, cross_thread_releases. Blocks
//   still live after the last event count as leaked_blocks / leaked_bytes
//   (their size as last allocated). A free of an unknown address counts in
//   unmatched_frees; free(NULL) in null_frees (both trace-wide).
// - first_seq / last_seq: smallest and largest seq of the site's events, and
//   first_time_ns / last_time_ns the times of those two events;
//   alignments: the alignment of every aligned alloc-kind event.
// - The trace's other records are kept as read: process, modules, unloads,
//   threads (index -> latest name), markers (in order), end, read result.
//
// Test-only; allocates freely; not thread-safe.
#ifndef HEAPREC_TESTS_TRACE_SUMMARY_H_
#define HEAPREC_TESTS_TRACE_SUMMARY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "format/records.h"
#include "format/trace_reader.h"
#include "format/trace_visitor.h"

namespace heaprec::tests {

inline constexpr char kNoStack[] = "";

struct SiteStats {
  std::map<format::Api, uint64_t> calls;
  uint64_t allocations = 0;
  uint64_t usage_allocs = 0;
  uint64_t usage_frees = 0;
  uint64_t reallocs = 0;
  uint64_t moved_reallocs = 0;
  uint64_t failed = 0;
  uint64_t bytes = 0;
  uint64_t released_blocks = 0;
  std::map<format::Api, uint64_t> released_by;
  uint64_t cross_thread_releases = 0;
  uint64_t leaked_blocks = 0;
  uint64_t leaked_bytes = 0;
  uint64_t first_seq = 0;  // 0 if the site has no events
  uint64_t last_seq = 0;
  uint64_t first_time_ns = 0;     // Event::time_ns of the first_seq event
  uint64_t last_time_ns = 0;      // and of the last_seq one
  std::set<uint64_t> alignments;  // alignments asked for by aligned allocations
  std::set<uint32_t> threads;     // Event::thread values seen
  std::set<uint32_t> modules;     // Symbol::module of the frame-0 addresses
  std::set<std::string> inlined;  // innermost inlined function at frame 0, if any

  uint64_t Calls(format::Api api) const;
  uint64_t ReleasedBy(format::Api api) const;
  void Merge(const SiteStats& other);
};

struct TraceSummary {
  format::ReadResult read;
  bool has_process = false;
  format::ProcessInfo process;
  bool has_end = false;
  format::EndRecord end;
  std::vector<format::Module> modules;
  std::vector<format::ModuleUnload> unloads;
  std::map<uint32_t, std::string> threads;  // Thread.thread -> latest name
  std::vector<format::Marker> markers;
  std::vector<format::RssSample> rss_samples;  // format 3.4
  std::map<std::string, SiteStats> sites;
  SiteStats total;  // every event, every site
  uint64_t events = 0;
  uint64_t unmatched_frees = 0;
  uint64_t null_frees = 0;

  // The site named name, or nullptr.
  const SiteStats* Site(const std::string& name) const;
  // The module with this id, or nullptr.
  const format::Module* Module(uint32_t id) const;
  // End counter value by name; -1 if absent (or no End record).
  int64_t Counter(const std::string& name) const;
  // Marker labels in trace order.
  std::vector<std::string> MarkerLabels() const;
  // Leaked blocks and bytes summed over the named sites only.
  uint64_t LeakedBlocks(const std::vector<std::string>& site_names) const;
  uint64_t LeakedBytes(const std::vector<std::string>& site_names) const;
  // A readable table of every site and the totals, for failure messages.
  std::string ToString() const;
};

// "malloc=3, realloc=2": counts by format::ApiName, in Api order.
std::string FormatApiCounts(const std::map<format::Api, uint64_t>& counts);

// The visitor behind SummarizeTrace, for traces read some other way (e.g.
// format::ReadTraceMemory). Call Finish once, after reading.
class SummaryVisitor : public format::TraceVisitor {
 public:
  SummaryVisitor();
  ~SummaryVisitor() override;
  void OnProcess(const format::ProcessInfo& p) override;
  void OnModule(const format::Module& m) override;
  void OnModuleUnload(const format::ModuleUnload& u) override;
  void OnThread(const format::ThreadInfo& t) override;
  void OnStackNode(const format::StackNode& n) override;
  void OnSymbol(const format::Symbol& s) override;
  void OnMarker(const format::Marker& m) override;
  void OnRssSample(const format::RssSample& r) override;
  void OnEvent(const format::Event& e) override;
  void OnEnd(const format::EndRecord& e) override;
  TraceSummary Finish(const format::ReadResult& read);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Reads the trace at path with format::ReadTraceFile and summarizes it.
TraceSummary SummarizeTrace(const std::string& path);

}  // namespace heaprec::tests

#endif  // HEAPREC_TESTS_TRACE_SUMMARY_H_
