// heaprec on tests/programs/threads.cc: 4 workers allocate, and each frees
// what its neighbour allocated. Every block is released by another thread
// than the one that allocated it and nothing leaks; the per-thread rings
// merge into one order in which no free comes before its allocation.
#include <gtest/gtest.h>

#include <set>

#include "format/api.h"
#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

using format::Api;

constexpr uint64_t kPerSite = 4 * 5 * 200;  // threads x rounds x blocks

TEST(ThreadsTest, CrossThreadFreesLeaveNothing) {
  const TraceSummary s = RecordOneTrace("threads", {Runfile("tests/threads")}, 0,
                                        "threads: 4 workers, 5 rounds of 200 blocks\n");

  // produce_block(i) = malloc(32 + 16 * i): 1000 blocks of each size.
  ExpectSite(s, "produce_block(int)",
             {.calls = {{Api::kMalloc, kPerSite}},
              .allocations = kPerSite,
              .bytes = 1000 * (32 + 48 + 64 + 80),
              .released_by = {{Api::kFree, kPerSite}}});
  ExpectSite(s, "produce_object(long)",
             {.calls = {{Api::kNew, kPerSite}},
              .allocations = kPerSite,
              .bytes = kPerSite * 24,
              .released_by = {{Api::kDeleteSized, kPerSite}}});
  for (const char* name : {"produce_block(int)", "produce_object(long)"}) {
    const SiteStats* site = s.Site(name);
    ASSERT_NE(site, nullptr) << name;
    EXPECT_EQ(site->cross_thread_releases, kPerSite) << name;
    EXPECT_EQ(site->threads.size(), 4u) << name;
  }
  EXPECT_EQ(s.LeakedBytes({"produce_block(int)", "produce_object(long)"}), 0u);
  // The frees are recorded without a stack: all 8000 of them, none unmatched.
  const SiteStats* frees = s.Site(kNoStack);
  ASSERT_NE(frees, nullptr);
  EXPECT_GE(frees->Calls(Api::kFree), kPerSite);
  EXPECT_GE(frees->Calls(Api::kDeleteSized), kPerSite);
  EXPECT_EQ(s.unmatched_frees, 0u) << s.ToString();

  // The main thread and the 4 workers, by the names they gave themselves.
  EXPECT_GE(s.threads.size(), 5u);
  std::set<std::string> names;
  for (const auto& [index, name] : s.threads) names.insert(name);
  for (const char* worker : {"worker-0", "worker-1", "worker-2", "worker-3"}) {
    EXPECT_EQ(names.count(worker), 1u) << worker << " not among the trace's threads";
  }
}

}  // namespace
}  // namespace heaprec::tests
