// heaprec on tests/programs/seq_switch.cc: a second thread starts recording
// while the first allocates in a loop, ending the first thread's solo seq
// counting (recorder/preload/seq_counter.h, TakeSeq) in the middle of it. The seqs stay
// gapless, every free comes after its allocation (none unmatched, nothing
// leaked) and every count is exact, also while both threads then allocate
// at once.
#include <gtest/gtest.h>

#include "format/api.h"
#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

using format::Api;

TEST(SeqSwitchTest, ASecondThreadMidLoopKeepsTheOrder) {
  for (int run = 0; run < 3; ++run) {  // the switch lands at a different point each time
    SCOPED_TRACE("run " + std::to_string(run));
    const TraceSummary s = RecordOneTrace(
        "seq_switch", {Runfile("tests/seq_switch")}, 0,
        "seq_switch: 40000 solo blocks, 10000 helper blocks, 50000 churned by each\n");
    EXPECT_EQ(s.Counter("skipped_seqs"), 0);
    ExpectSite(s, "solo_block()",
               {.calls = {{Api::kMalloc, 40000}},
                .allocations = 40000,
                .bytes = 40000 * 48,
                .released_by = {{Api::kFree, 40000}}});
    ExpectSite(s, "helper_block()",
               {.calls = {{Api::kMalloc, 10000}},
                .allocations = 10000,
                .bytes = 10000 * 80,
                .released_by = {{Api::kFree, 10000}}});
    ExpectSite(s, "churn_block()",
               {.calls = {{Api::kMalloc, 100000}},
                .allocations = 100000,
                .bytes = 100000 * 16,
                .released_by = {{Api::kFree, 100000}}});
    const SiteStats* solo = s.Site("solo_block()");
    const SiteStats* helper = s.Site("helper_block()");
    ASSERT_NE(solo, nullptr);
    ASSERT_NE(helper, nullptr);
    EXPECT_EQ(solo->cross_thread_releases, 20000u);
    EXPECT_EQ(helper->cross_thread_releases, 10000u);
    EXPECT_EQ(s.unmatched_frees, 0u) << s.ToString();
    EXPECT_EQ(s.LeakedBytes({"solo_block()", "helper_block()", "churn_block()"}), 0u);
  }
}

}  // namespace
}  // namespace heaprec::tests
