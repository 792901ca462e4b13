// heaprec on tests/programs/tiny_blocks.c: ten million 1-byte blocks, half
// of them leaked. Every event recorded (counts exact, nothing dropped) and
// heapreplay's leak report finds all 5,000,000 leaked blocks at their site.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "format/api.h"
#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

using format::Api;

TEST(TinyBlocksTest, TenMillionOneByteBlocks) {
  const Recording r = Record("tiny_blocks", {Runfile("tests/tiny_blocks")});
  EXPECT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_EQ(r.run.out, "tiny_blocks: 5000000 kept\n");
  ASSERT_EQ(r.traces.size(), 1u) << Join(r.traces) << "\n" << r.run.err;
  const TraceSummary s = SummarizeTrace(r.traces[0]);
  ExpectConsistent(s);
  ExpectSite(s, "tiny_alloc",
             {.calls = {{Api::kMalloc, 10000000}},
              .allocations = 10000000,
              .bytes = 10000000,
              .released_by = {{Api::kFree, 5000000}},
              .leaked_blocks = 5000000,
              .leaked_bytes = 5000000});
  ExpectSite(s, "table_alloc",
             {.calls = {{Api::kMalloc, 1}},
              .allocations = 1,
              .bytes = 80000000,
              .released_by = {{Api::kFree, 1}}});

  const ProcessResult leaks =
      RunProgram({Runfile("replay/heapreplay"), "--leaks", "--json", r.traces[0]});
  ASSERT_EQ(leaks.exit_code, 0) << leaks.err;
  const nlohmann::json j = nlohmann::json::parse(leaks.out);
  bool found = false;
  for (const nlohmann::json& site : j["leaks"]["sites"]) {
    if (site["stack"].empty() || site["stack"][0]["function"] != "tiny_alloc") continue;
    found = true;
    EXPECT_EQ(site["count"], 5000000);
    EXPECT_EQ(site["bytes"], 5000000);
  }
  EXPECT_TRUE(found) << leaks.out.substr(0, 2000);
}

}  // namespace
}  // namespace heaprec::tests
