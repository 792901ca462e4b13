// heaprec on tests/programs/cxx_new.cc: every kind of operator new, the
// delete each block was released with (sized, aligned, array), and the leaks,
// per call site.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include "format/api.h"
#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

using format::Api;

TEST(CxxNewTest, NewDeleteAndLeaksPerSite) {
  const TraceSummary s =
      RecordOneTrace("cxx_new", {Runfile("tests/cxx_new")}, 0, "cxx_new: kept 11 blocks\n");
  EXPECT_TRUE(WIFEXITED(s.end.exit_status) && WEXITSTATUS(s.end.exit_status) == 0)
      << s.end.exit_status;

  // Leaked: Node is 24 bytes, Wide (alignas(64)) 128 bytes.
  ExpectSite(s, "leak_new()",
             {.calls = {{Api::kNew, 4}},
              .allocations = 4,
              .bytes = 96,
              .leaked_blocks = 4,
              .leaked_bytes = 96});
  ExpectSite(s, "leak_new_array()",
             {.calls = {{Api::kNewArray, 2}},
              .allocations = 2,
              .bytes = 200,
              .leaked_blocks = 2,
              .leaked_bytes = 200});
  ExpectSite(s, "leak_aligned_new()",
             {.calls = {{Api::kNewAligned, 3}},
              .allocations = 3,
              .bytes = 384,
              .leaked_blocks = 3,
              .leaked_bytes = 384});
  ExpectSite(s, "leak_nothrow_new()",
             {.calls = {{Api::kNewNothrow, 2}},
              .allocations = 2,
              .bytes = 48,
              .leaked_blocks = 2,
              .leaked_bytes = 48});
  // Freed, each with the delete GCC picks for it (C++20: sized deallocation
  // for complete types; arrays of trivially destructible types carry no
  // cookie and so get the unsized delete[]).
  ExpectSite(s, "make_sized()",
             {.calls = {{Api::kNew, 5}},
              .allocations = 5,
              .bytes = 120,
              .released_by = {{Api::kDeleteSized, 5}}});
  ExpectSite(s, "make_array()",
             {.calls = {{Api::kNewArray, 3}},
              .allocations = 3,
              .bytes = 240,
              .released_by = {{Api::kDeleteArray, 3}}});
  ExpectSite(s, "make_aligned()",
             {.calls = {{Api::kNewAligned, 2}},
              .allocations = 2,
              .bytes = 256,
              .released_by = {{Api::kDeleteSizedAligned, 2}}});
  ExpectSite(s, "make_aligned_array()",
             {.calls = {{Api::kNewArrayAligned, 1}},
              .allocations = 1,
              .bytes = 256,
              .released_by = {{Api::kDeleteArrayAligned, 1}}});
  ExpectSite(s, "make_nothrow()",
             {.calls = {{Api::kNewNothrow, 2}},
              .allocations = 2,
              .bytes = 48,
              .released_by = {{Api::kDeleteSized, 2}}});
  ExpectSite(s, "make_explicit()",
             {.calls = {{Api::kNew, 1}},
              .allocations = 1,
              .bytes = 40,
              .released_by = {{Api::kDeleteSized, 1}}});

  for (const char* aligned : {"leak_aligned_new()", "make_aligned()", "make_aligned_array()"}) {
    ASSERT_NE(s.Site(aligned), nullptr) << aligned;
    EXPECT_EQ(s.Site(aligned)->alignments, (std::set<uint64_t>{64})) << aligned;
  }
  const std::vector<std::string> named = {
      "leak_new()",     "leak_new_array()", "leak_aligned_new()", "leak_nothrow_new()",
      "make_sized()",   "make_array()",     "make_aligned()",     "make_aligned_array()",
      "make_nothrow()", "make_explicit()"};
  EXPECT_EQ(s.LeakedBlocks(named), 11u);
  EXPECT_EQ(s.LeakedBytes(named), 728u);
}

}  // namespace
}  // namespace heaprec::tests
