// heaprec on tests/programs/sizes.c: an invalid alignment still fails as
// without heaprec (EINVAL, the pointer untouched) and is recorded as a failed
// call; large alignments are honoured and recorded; 2 GiB blocks are
// recorded with their sizes.
#include <gtest/gtest.h>

#include <set>

#include "format/api.h"
#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

using format::Api;

TEST(SizesTest, BadAndLargeAlignmentsAndGiantBlocks) {
  const TraceSummary s = RecordOneTrace("sizes", {Runfile("tests/sizes")}, 0,
                                        "sizes: bad alignment refused 1, aligned 1, giant 1\n");
  ExpectSite(s, "bad_align", {.calls = {{Api::kPosixMemalign, 1}}, .failed = 1});
  ExpectSite(s, "huge_align",
             {.calls = {{Api::kPosixMemalign, 1}, {Api::kAlignedAlloc, 1}, {Api::kMemalign, 1}},
              .allocations = 3,
              .bytes = 100 + 65536 + 10,
              .released_by = {{Api::kFree, 3}}});
  const SiteStats* aligned = s.Site("huge_align");
  ASSERT_NE(aligned, nullptr);
  EXPECT_EQ(aligned->alignments, (std::set<uint64_t>{4096, 65536, 2097152}));
  ExpectSite(s, "giant",
             {.calls = {{Api::kMalloc, 2}},
              .allocations = 2,
              .bytes = uint64_t{4} << 30,
              .released_by = {{Api::kFree, 2}}});
}

}  // namespace
}  // namespace heaprec::tests
