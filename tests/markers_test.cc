// heaprec on tests/programs/markers.c: heaprec_mark() labels land in the
// trace in order, around the allocations made between them; without heaprec
// the program runs the same (heaprec_mark_label is a weak symbol).
#include <gtest/gtest.h>

#include "format/api.h"
#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

using format::Api;

TEST(MarkersTest, MarkersBracketTheirAllocations) {
  const TraceSummary s = RecordOneTrace("markers", {Runfile("tests/markers")}, 0, "markers: ok\n");
  ExpectSite(s, "marked_alloc",
             {.calls = {{Api::kMalloc, 3}},
              .allocations = 3,
              .bytes = 297,
              .released_by = {{Api::kFree, 3}}});
  ASSERT_EQ(s.MarkerLabels(), (std::vector<std::string>{"before", "after"}));
  const SiteStats* site = s.Site("marked_alloc");
  ASSERT_NE(site, nullptr);
  EXPECT_LT(s.markers[0].seq, site->first_seq);
  EXPECT_GT(s.markers[1].seq, site->last_seq);
  EXPECT_LE(s.markers[0].time_ns, s.markers[1].time_ns);
  // Set by the thread that allocated.
  ASSERT_EQ(site->threads.size(), 1u);
  EXPECT_EQ(s.markers[0].thread, *site->threads.begin());
  EXPECT_EQ(s.markers[1].thread, *site->threads.begin());
}

TEST(MarkersTest, RunsWithoutHeaprec) {
  const ProcessResult plain = RunProgram({Runfile("tests/markers")});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out, "markers: ok\n");
  EXPECT_EQ(plain.err, "");
}

}  // namespace
}  // namespace heaprec::tests
