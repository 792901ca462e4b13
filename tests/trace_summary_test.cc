// TraceSummary on a small hand-written trace: every counting rule of
// trace_summary.h once (sites by function, moved reallocs, releases across
// threads, leaks, failures, unknown frees, inlined frames, markers).
#include "tests/trace_summary.h"

#include <gtest/gtest.h>

#include "format/byte_io.h"
#include "format/trace_reader.h"
#include "format/trace_writer.h"

namespace heaprec::tests {
namespace {

using format::Api;

// Function A at 0x1000; B at 0x2000 and 0x2008; C (with "inner" inlined) at
// 0x3000. Each is the innermost frame of a one-frame stack.
constexpr uint32_t kA = 1, kB1 = 2, kB2 = 3, kC = 4;

format::Event Ev(uint64_t seq, uint32_t thread, Api api, uint64_t address, uint64_t size,
                 uint32_t stack, uint64_t old_address = 0) {
  format::Event e;
  e.seq = seq;
  e.time_ns = seq * 10;
  e.thread = thread;
  e.api = api;
  e.address = address;
  e.size = size;
  e.stack = stack;
  e.old_address = old_address;
  e.alignment = format::HasAlignment(api) ? 16 : 0;
  return e;
}

format::Symbol Sym(uint64_t address, std::vector<std::string> functions) {
  format::Symbol s;
  s.address = address;
  s.module = 1;
  for (const std::string& f : functions) s.frames.push_back({f, "f.c", 1, 0});
  return s;
}

TraceSummary Summarize(const std::string& bytes) {
  SummaryVisitor visitor;
  const format::ReadResult read =
      format::ReadTraceMemory("test", bytes.data(), bytes.size(), visitor);
  return visitor.Finish(read);
}

std::string SampleTrace() {
  format::StringSink sink;
  format::ProcessInfo process;
  process.pid = 42;
  process.program = "/bin/sample";
  format::TraceWriter w(&sink, process);
  w.AddThread({1, 42, "main", 1});
  w.AddThread({2, 43, "helper", 1});
  w.AddStackNode({kA, 0, 0x1000});
  w.AddStackNode({kB1, 0, 0x2000});
  w.AddStackNode({kB2, 0, 0x2008});
  w.AddStackNode({kC, 0, 0x3000});
  w.AddEvent(Ev(1, 1, Api::kMalloc, 0x100, 10, kA));
  w.AddEvent(Ev(2, 1, Api::kCalloc, 0x200, 20, kB1));
  w.AddEvent(Ev(3, 2, Api::kFree, 0x100, 0, 0));  // A's block, freed by thread 2
  w.AddMarker({4, 40, 1, "middle"});
  // A moved realloc in B, with thread 2's malloc between its two halves.
  w.AddEvent(Ev(5, 1, Api::kRealloc, 0, 0, kB2, 0x200));
  w.AddEvent(Ev(6, 2, Api::kMalloc, 0x300, 5, kA));
  w.AddEvent(Ev(7, 1, Api::kRealloc, 0x400, 40, kB2));
  w.AddEvent(Ev(8, 1, Api::kRealloc, 0x400, 50, kB2, 0x400));  // in place
  // C: realloc(NULL, 7), then realloc(p, 0); then A's realloc(NULL, 8) on the
  // same thread is a call of its own (another stack), not a move's 2nd half.
  w.AddEvent(Ev(9, 1, Api::kRealloc, 0x500, 7, kC));
  w.AddEvent(Ev(10, 1, Api::kRealloc, 0, 0, kC, 0x500));
  w.AddEvent(Ev(11, 1, Api::kRealloc, 0x600, 8, kA));
  w.AddEvent(Ev(12, 1, Api::kMalloc, 0, 1ull << 50, kA));   // failed
  w.AddEvent(Ev(13, 2, Api::kRealloc, 0, 100, kA, 0x300));  // failed, 0x300 kept
  w.AddEvent(Ev(14, 1, Api::kFree, 0, 0, 0));               // free(NULL)
  w.AddEvent(Ev(15, 1, Api::kFree, 0x999, 0, 0));           // unknown block
  w.AddEvent(Ev(16, 2, Api::kDeleteSized, 0x600, 8, 0));    // A's, other thread
  w.AddMarker({17, 170, 2, "end"});
  w.AddSymbol(Sym(0x1000, {"A"}));
  w.AddSymbol(Sym(0x2000, {"B"}));
  w.AddSymbol(Sym(0x2008, {"B"}));
  w.AddSymbol(Sym(0x3000, {"inner", "C"}));
  format::EndRecord end;
  end.exit_status = 0;
  end.counters = {{"dropped_events", 0}};
  EXPECT_TRUE(w.Finish(end));
  return sink.bytes();
}

TEST(TraceSummaryTest, CountsPerSite) {
  const TraceSummary s = Summarize(SampleTrace());
  ASSERT_EQ(s.read.status, format::ReadResult::kComplete) << s.read.message;
  ASSERT_EQ(s.sites.size(), 4u) << s.ToString();

  const SiteStats* a = s.Site("A");
  ASSERT_NE(a, nullptr) << s.ToString();
  EXPECT_EQ(a->Calls(Api::kMalloc), 3u);
  EXPECT_EQ(a->Calls(Api::kRealloc), 2u);
  EXPECT_EQ(a->allocations, 2u);
  EXPECT_EQ(a->reallocs, 2u);
  EXPECT_EQ(a->moved_reallocs, 0u);
  EXPECT_EQ(a->failed, 2u);
  EXPECT_EQ(a->bytes, 10u + 5u + 8u);
  EXPECT_EQ(a->released_blocks, 2u);
  EXPECT_EQ(a->ReleasedBy(Api::kFree), 1u);
  EXPECT_EQ(a->ReleasedBy(Api::kDeleteSized), 1u);
  EXPECT_EQ(a->cross_thread_releases, 2u);
  EXPECT_EQ(a->leaked_blocks, 1u);  // 0x300
  EXPECT_EQ(a->leaked_bytes, 5u);
  EXPECT_EQ(a->threads, (std::set<uint32_t>{1, 2}));
  EXPECT_EQ(a->first_seq, 1u);
  EXPECT_EQ(a->last_seq, 13u);

  const SiteStats* b = s.Site("B");  // two addresses, one function
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->Calls(Api::kCalloc), 1u);
  EXPECT_EQ(b->Calls(Api::kRealloc), 2u);  // the moved one counts once
  EXPECT_EQ(b->allocations, 1u);
  EXPECT_EQ(b->reallocs, 2u);
  EXPECT_EQ(b->moved_reallocs, 1u);
  EXPECT_EQ(b->bytes, 20u + 40u + 50u);
  EXPECT_EQ(b->released_blocks, 2u);
  EXPECT_EQ(b->ReleasedBy(Api::kRealloc), 2u);
  EXPECT_EQ(b->cross_thread_releases, 0u);
  EXPECT_EQ(b->leaked_blocks, 1u);
  EXPECT_EQ(b->leaked_bytes, 50u);

  const SiteStats* c = s.Site("C");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->Calls(Api::kRealloc), 2u);
  EXPECT_EQ(c->allocations, 0u);
  EXPECT_EQ(c->reallocs, 2u);
  EXPECT_EQ(c->moved_reallocs, 0u);
  EXPECT_EQ(c->bytes, 7u);
  EXPECT_EQ(c->released_blocks, 1u);
  EXPECT_EQ(c->leaked_blocks, 0u);
  EXPECT_EQ(c->inlined, (std::set<std::string>{"inner"}));
  EXPECT_EQ(c->modules, (std::set<uint32_t>{1}));

  const SiteStats* none = s.Site(kNoStack);
  ASSERT_NE(none, nullptr);
  EXPECT_EQ(none->Calls(Api::kFree), 3u);
  EXPECT_EQ(none->Calls(Api::kDeleteSized), 1u);
}

TEST(TraceSummaryTest, TotalsAndRecords) {
  const TraceSummary s = Summarize(SampleTrace());
  ASSERT_EQ(s.read.status, format::ReadResult::kComplete) << s.read.message;
  EXPECT_EQ(s.events, 15u);
  EXPECT_EQ(s.unmatched_frees, 1u);
  EXPECT_EQ(s.null_frees, 1u);
  EXPECT_EQ(s.total.leaked_blocks, 2u);
  EXPECT_EQ(s.total.leaked_bytes, 55u);
  // valgrind's "total heap usage": allocations at seqs 1, 2, 6, 7 (the move's
  // new half), 8 (in place), 9, 11; frees at 3, 5 (the move's old half), 8,
  // 10 (realloc(p, 0)), 15 (unknown block), 16.
  EXPECT_EQ(s.total.usage_allocs, 7u);
  EXPECT_EQ(s.total.usage_frees, 6u);
  // The summary's totals agree with the writer's own End totals.
  ASSERT_TRUE(s.has_end);
  EXPECT_EQ(s.total.usage_allocs, s.end.allocations);
  EXPECT_EQ(s.total.usage_frees, s.end.frees);
  EXPECT_EQ(s.total.bytes, s.end.bytes_allocated);
  EXPECT_EQ(s.events, s.end.events);
  EXPECT_EQ(s.Counter("dropped_events"), 0);
  EXPECT_EQ(s.Counter("no_such_counter"), -1);
  ASSERT_TRUE(s.has_process);
  EXPECT_EQ(s.process.pid, 42);
  EXPECT_EQ(s.threads.size(), 2u);
  EXPECT_EQ(s.threads.at(2), "helper");
  EXPECT_EQ(s.MarkerLabels(), (std::vector<std::string>{"middle", "end"}));
  EXPECT_EQ(s.LeakedBytes({"A", "B", "C", "missing"}), 55u);
  EXPECT_EQ(s.LeakedBlocks({"B"}), 1u);
}

TEST(TraceSummaryTest, UnsymbolizedAddressIsNamedByAddress) {
  format::StringSink sink;
  format::TraceWriter w(&sink, format::ProcessInfo());
  w.AddStackNode({1, 0, 0xabc});
  w.AddEvent(Ev(1, 1, Api::kMalloc, 0x100, 3, 1));
  ASSERT_TRUE(w.Finish(format::EndRecord()));
  const TraceSummary s = Summarize(sink.bytes());
  const SiteStats* site = s.Site("?0xabc");
  ASSERT_NE(site, nullptr) << s.ToString();
  EXPECT_EQ(site->leaked_bytes, 3u);
}

TEST(TraceSummaryTest, MissingFileIsAnError) {
  const TraceSummary s = SummarizeTrace("/nonexistent/trace.zst");
  EXPECT_EQ(s.read.status, format::ReadResult::kError);
  EXPECT_FALSE(s.has_end);
  EXPECT_TRUE(s.sites.empty());
}

}  // namespace
}  // namespace heaprec::tests
