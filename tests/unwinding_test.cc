// heaprec on tests/programs/unwinding.cc: stacks deeper than the depth
// limit, longjmp and C++ exceptions through allocation sites, allocations
// and frees in signal handlers (raised, and from a timer on an alternate
// signal stack). Every count exact, output and status unchanged.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "format/api.h"
#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

using format::Api;

TraceSummary RecordMode(const std::string& mode, std::string* trace = nullptr) {
  const Recording r = Record("unwinding_" + mode, {Runfile("tests/unwinding"), mode});
  EXPECT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_EQ(r.run.out, "unwinding: " + mode + " ok\n");
  EXPECT_EQ(r.traces.size(), 1u) << Join(r.traces) << "\n" << r.run.err;
  if (r.traces.size() != 1) return {};
  if (trace != nullptr) *trace = r.traces[0];
  TraceSummary s = SummarizeTrace(r.traces[0]);
  ExpectConsistent(s);
  EXPECT_EQ(s.Counter("reentrant_calls"), 0) << s.ToString();
  return s;
}

TEST(UnwindingTest, StacksDeeperThanTheLimitKeepTheirInnermostFrames) {
  std::string trace;
  const TraceSummary s = RecordMode("deep", &trace);
  ExpectSite(s, "deep_leaf",
             {.calls = {{Api::kMalloc, 10}},
              .allocations = 10,
              .bytes = 480,
              .leaked_blocks = 10,
              .leaked_bytes = 480});
  // The leak report's stack: the 256 innermost frames (the default depth),
  // deep_leaf and then Recurse all the way, and one [truncated] frame at the
  // root; the JSON and the text report count the 10 cut stacks.
  const ProcessResult r =
      RunProgram({Runfile("replay/heapreplay"), "--leaks", "--leak-kinds=all", "--json", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  bool found = false;
  for (const nlohmann::json& site : j["leaks"]["sites"]) {
    const nlohmann::json& stack = site["stack"];
    if (stack.empty() || stack[0]["function"] != "deep_leaf") continue;
    found = true;
    EXPECT_EQ(site["count"], 10);
    EXPECT_EQ(site["bytes"], 480);
    ASSERT_EQ(stack.size(), 257u);
    EXPECT_EQ(stack[256]["function"], "[truncated]");
    for (size_t i = 1; i < 256; ++i) {
      EXPECT_EQ(stack[i]["function"].get<std::string>().rfind("Recurse", 0), 0u)
          << i << ": " << stack[i].dump();
    }
  }
  EXPECT_TRUE(found) << r.out;
  EXPECT_EQ(j["losses"]["truncated_stacks"], 10) << j["losses"];
  const ProcessResult text = RunProgram({Runfile("replay/heapreplay"), "--leaks", trace});
  EXPECT_NE(text.out.find("warning: 10 allocations had call stacks deeper than the recorder "
                          "keeps (heaprec --depth, at most 256)"),
            std::string::npos)
      << text.out;
  const ProcessResult folded = RunProgram({Runfile("replay/heapreplay"), "--folded", trace});
  EXPECT_NE(folded.out.find("[truncated];Recurse"), std::string::npos) << folded.out;
}

TEST(UnwindingTest, CutStacksAreCountedWhenTheSameStackComesBack) {
  // heaprec --depth 8: the 10 deep stacks are short enough for the
  // unwinder's recent captures, so the 2nd to the 10th are answered from the
  // 1st (fast_unwind.h); each is still a cut stack, and counted as one. The
  // count is every allocation whose stack is cut (printf's buffer too).
  const std::string dir = MakeTempDir("unwinding_depth8");
  const std::string trace = dir + "/trace.zst";
  const ProcessResult run = RunProgram({Runfile("recorder/heaprec"), "-q", "--depth", "8", "-o",
                                        trace, "--", Runfile("tests/unwinding"), "deep"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const ProcessResult folded =
      RunProgram({Runfile("replay/heapreplay"), "--folded", "--metric", "count", trace});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  uint64_t cut = 0, deep = 0;
  std::istringstream lines(folded.out);
  for (std::string line; std::getline(lines, line);) {
    const uint64_t count = std::stoull(line.substr(line.rfind(' ') + 1));
    if (line.rfind("[truncated];", 0) == 0) cut += count;
    if (line.find(";Recurse;deep_leaf ") != std::string::npos) deep += count;
  }
  EXPECT_EQ(deep, 10u) << folded.out;
  const ProcessResult r = RunProgram({Runfile("replay/heapreplay"), "--json", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_GE(cut, 10u) << folded.out;
  EXPECT_EQ(j["losses"]["truncated_stacks"], cut) << j["losses"] << "\n" << folded.out;
}

TEST(UnwindingTest, LongjmpOutOfAllocatingFrames) {
  const TraceSummary s = RecordMode("longjmp");
  ExpectSite(s, "jump_leaf",
             {.calls = {{Api::kMalloc, 100}},
              .allocations = 100,
              .bytes = 6400,
              .released_by = {{Api::kFree, 100}}});
  // Odd rounds jumped over jump_middle's free.
  ExpectSite(s, "jump_middle",
             {.calls = {{Api::kMalloc, 100}},
              .allocations = 100,
              .bytes = 3200,
              .released_by = {{Api::kFree, 50}},
              .leaked_blocks = 50,
              .leaked_bytes = 1600});
}

TEST(UnwindingTest, ExceptionsThroughAllocatingFrames) {
  const TraceSummary s = RecordMode("exceptions");
  ExpectSite(s, "throw_leaf",
             {.calls = {{Api::kNewArray, 100}},
              .allocations = 100,
              .bytes = 2400,
              .released_by = {{Api::kDeleteArray, 100}}});
  // Freed by the unwinding, in unique_ptr's destructor.
  ExpectSite(s, "throw_middle",
             {.calls = {{Api::kNewArray, 100}},
              .allocations = 100,
              .bytes = 1600,
              .released_by = {{Api::kDeleteArray, 100}}});
  // The exception objects: libstdc++'s header plus an Oops, each freed
  // when its catch block ends.
  const SiteStats* thrown = s.Site("__cxa_allocate_exception");
  ASSERT_NE(thrown, nullptr) << s.ToString();
  EXPECT_EQ(thrown->Calls(Api::kMalloc), 100u);
  EXPECT_EQ(thrown->allocations, 100u);
  EXPECT_EQ(thrown->bytes % 100, 0u);
  EXPECT_GT(thrown->bytes, 100 * sizeof(int));
  EXPECT_EQ(thrown->ReleasedBy(Api::kFree), 100u);
  EXPECT_EQ(thrown->leaked_blocks, 0u);
}

TEST(UnwindingTest, AllocationsInSignalHandlers) {
  const TraceSummary s = RecordMode("signals");
  ExpectSite(s, "handler_alloc",
             {.calls = {{Api::kMalloc, 100}},
              .allocations = 100,
              .bytes = 20000,
              .released_by = {{Api::kFree, 100}}});
  ExpectSite(s, "for_handler",
             {.calls = {{Api::kMalloc, 100}},
              .allocations = 100,
              .bytes = 4000,
              .released_by = {{Api::kFree, 100}}});
}

}  // namespace
}  // namespace heaprec::tests
