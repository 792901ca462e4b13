// heaprec on tests/programs/c_leaks.c: the C allocation functions, per call
// site, with exact counts, bytes, alignments and leaks; the exit status and
// stdout pass through unchanged.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include "format/api.h"
#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

using format::Api;

constexpr char kExpectedOutput[] =
    "c_leaks: kept 13 blocks, 77 temporary chars, realloc edges 2, failed 1\n";

TEST(CLeaksTest, SitesLeaksAndExitStatus) {
  const TraceSummary s = RecordOneTrace("c_leaks", {Runfile("tests/c_leaks")}, 3, kExpectedOutput);
  EXPECT_TRUE(WIFEXITED(s.end.exit_status)) << s.end.exit_status;
  EXPECT_EQ(WEXITSTATUS(s.end.exit_status), 3);

  ExpectSite(s, "leak_malloc",
             {.calls = {{Api::kMalloc, 5}},
              .allocations = 5,
              .bytes = 500,
              .leaked_blocks = 5,
              .leaked_bytes = 500});
  ExpectSite(s, "leak_calloc",
             {.calls = {{Api::kCalloc, 3}},
              .allocations = 3,
              .bytes = 900,
              .leaked_blocks = 3,
              .leaked_bytes = 900});
  // malloc(16), then 4 reallocs (in place or moved, the numbers are the same);
  // each realloc releases the block before it.
  ExpectSite(s, "grow_buffer",
             {.calls = {{Api::kMalloc, 1}, {Api::kRealloc, 4}},
              .allocations = 1,
              .reallocs = 4,
              .bytes = 16 + 64 + 1000 + 5000 + 20000,
              .released_by = {{Api::kRealloc, 4}},
              .leaked_blocks = 1,
              .leaked_bytes = 20000});
  ExpectSite(s, "leak_memalign",
             {.calls = {{Api::kPosixMemalign, 2}},
              .allocations = 2,
              .bytes = 400,
              .leaked_blocks = 2,
              .leaked_bytes = 400});
  ExpectSite(s, "leak_aligned",
             {.calls = {{Api::kAlignedAlloc, 1}},
              .allocations = 1,
              .bytes = 512,
              .leaked_blocks = 1,
              .leaked_bytes = 512});
  ExpectSite(s, "temp_malloc",
             {.calls = {{Api::kMalloc, 7}},
              .allocations = 7,
              .bytes = 7 * 48,
              .released_by = {{Api::kFree, 7}}});
  ExpectSite(s, "make_freed",
             {.calls = {{Api::kCalloc, 4}},
              .allocations = 4,
              .bytes = 4 * 32,
              .released_by = {{Api::kFree, 4}}});
  ExpectSite(s, "aligned_freed",
             {.calls = {{Api::kPosixMemalign, 1}, {Api::kAlignedAlloc, 1}},
              .allocations = 2,
              .bytes = 96 + 256,
              .released_by = {{Api::kFree, 2}}});
  // realloc(NULL, 40) allocates, realloc(p, 2^62) fails, realloc(p, 0)
  // frees: one event each.
  ExpectSite(s, "realloc_edges",
             {.calls = {{Api::kRealloc, 3}},
              .reallocs = 3,
              .failed = 1,
              .bytes = 40,
              .released_by = {{Api::kRealloc, 1}}});
  // A realloc that moved: two events ("old freed", "new allocated"), one call.
  ExpectSite(s, "move_buffer",
             {.calls = {{Api::kMalloc, 2}, {Api::kRealloc, 1}},
              .allocations = 2,
              .reallocs = 1,
              .bytes = 32 + 32 + 4096,
              .released_by = {{Api::kRealloc, 1}, {Api::kFree, 1}},
              .leaked_blocks = 1,
              .leaked_bytes = 4096});
  ASSERT_NE(s.Site("move_buffer"), nullptr);
  EXPECT_EQ(s.Site("move_buffer")->moved_reallocs, 1u);
  ExpectSite(s, "failed_alloc", {.calls = {{Api::kMalloc, 1}}, .failed = 1});

  ASSERT_NE(s.Site("leak_memalign"), nullptr);
  EXPECT_EQ(s.Site("leak_memalign")->alignments, (std::set<uint64_t>{64}));
  ASSERT_NE(s.Site("leak_aligned"), nullptr);
  EXPECT_EQ(s.Site("leak_aligned")->alignments, (std::set<uint64_t>{256}));
  ASSERT_NE(s.Site("aligned_freed"), nullptr);
  EXPECT_EQ(s.Site("aligned_freed")->alignments, (std::set<uint64_t>{32, 128}));

  const std::vector<std::string> named = {"leak_malloc",   "leak_calloc",   "grow_buffer",
                                          "leak_memalign", "leak_aligned",  "temp_malloc",
                                          "make_freed",    "aligned_freed", "realloc_edges"};
  EXPECT_EQ(s.LeakedBlocks(named), 12u);
  EXPECT_EQ(s.LeakedBytes(named), 22312u);
  // All named sites are in the program itself, on its one thread.
  for (const std::string& name : named) {
    const SiteStats* site = s.Site(name);
    ASSERT_NE(site, nullptr) << name;
    EXPECT_EQ(site->modules.size(), 1u) << name;
    EXPECT_EQ(site->threads.size(), 1u) << name;
    EXPECT_TRUE(site->inlined.empty()) << name;
  }
  EXPECT_EQ(s.threads.size(), 1u);
}

TEST(CLeaksTest, OutputAndStatusSameWithoutHeaprec) {
  const ProcessResult plain = RunProgram({Runfile("tests/c_leaks")});
  EXPECT_EQ(plain.exit_code, 3) << plain.err;
  EXPECT_EQ(plain.out, kExpectedOutput);
  const Recording r = Record("c_leaks_output", {Runfile("tests/c_leaks")});
  EXPECT_EQ(r.run.exit_code, plain.exit_code);
  EXPECT_EQ(r.run.out, plain.out);
  EXPECT_EQ(r.run.err, plain.err);  // heaprec -q adds nothing
}

}  // namespace
}  // namespace heaprec::tests
