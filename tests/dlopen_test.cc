// heaprec on tests/programs/dlopen_host.c with tests/programs/plugin.c: a
// site in a library that was dlclosed before recording ended is still named
// (symbols are read from the library's file), and the unload is recorded.
#include <gtest/gtest.h>

#include "format/api.h"
#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

using format::Api;

TEST(DlopenTest, UnloadedPluginSiteIsSymbolized) {
  const Recording r =
      Record("dlopen", {Runfile("tests/dlopen_host"), Runfile("tests/libplugin.so")});
  EXPECT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_EQ(r.run.out, "dlopen_host: ok\n");
  ASSERT_EQ(r.traces.size(), 1u) << Join(r.traces) << "\n" << r.run.err;
  const TraceSummary s = SummarizeTrace(r.traces[0]);
  ExpectConsistent(s);

  ExpectSite(s, "plugin_alloc",
             {.calls = {{Api::kMalloc, 3}},
              .allocations = 3,
              .bytes = 3 * 777,
              .released_by = {{Api::kFree, 1}},
              .leaked_blocks = 2,
              .leaked_bytes = 2 * 777});
  const SiteStats* site = s.Site("plugin_alloc");
  ASSERT_NE(site, nullptr);
  ASSERT_EQ(site->modules.size(), 1u);
  const uint32_t id = *site->modules.begin();
  const format::Module* plugin = s.Module(id);
  ASSERT_NE(plugin, nullptr) << "module " << id;
  const std::string suffix = "/libplugin.so";
  ASSERT_GE(plugin->path.size(), suffix.size());
  EXPECT_EQ(plugin->path.substr(plugin->path.size() - suffix.size()), suffix);
  EXPECT_FALSE(plugin->build_id.empty());
  // Loaded before its first allocation, unloaded after its last.
  EXPECT_LE(plugin->seq, site->first_seq);
  int unloads = 0;
  for (const format::ModuleUnload& u : s.unloads) {
    if (u.id != id) continue;
    ++unloads;
    EXPECT_GT(u.seq, site->last_seq);
  }
  EXPECT_EQ(unloads, 1) << "no single unload record for module " << id << " (" << plugin->path
                        << ")";
}

}  // namespace
}  // namespace heaprec::tests
