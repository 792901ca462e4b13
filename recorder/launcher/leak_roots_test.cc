// BuildRoots on a made-up process: a module's data split by its globals,
// one root per global name and file, names given whole by Roots::Root.
#include "recorder/launcher/leak_roots.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace heaprec::recorder::launcher {
namespace {

// A writable data mapping of /lib/libfoo.so at [0x10000, 0x12000), with
// three globals: two named "counter" (statics of two translation units) and
// one "g_cache".
struct Fixture {
  std::vector<Mapping> mappings;
  std::vector<format::Module> modules;
  symbolize::ModuleData data;

  Fixture() {
    Mapping m;
    m.start = 0x10000;
    m.end = 0x12000;
    m.readable = m.writable = true;
    m.inode = 42;
    m.path = "/lib/libfoo.so";
    mappings.push_back(m);
    format::Module mod;
    mod.id = 3;
    mod.path = "/lib/libfoo.so";
    mod.ranges.push_back({0x10000, 0x12000, 0});
    modules.push_back(mod);
    data.symbols = {{0x10100, 8, "counter"}, {0x10200, 64, "g_cache"}, {0x10400, 8, "counter"}};
  }

  Roots Build() {
    RootsInput in;
    in.mappings = mappings;
    in.modules = modules;
    in.module_data = [this](const format::Module&) -> const symbolize::ModuleData& { return data; };
    return BuildRoots(in);
  }
};

// The root id covering address, or 0.
leakscan::RootId RootAt(const Roots& r, uint64_t address) {
  for (const leakscan::RootRange& range : r.ranges) {
    if (address >= range.start && address < range.end) return range.root;
  }
  return 0;
}

TEST(LeakRootsTest, GlobalsAreNamedBySymbolAndFile) {
  Fixture f;
  const Roots r = f.Build();
  const leakscan::RootId cache = RootAt(r, 0x10210);
  ASSERT_NE(cache, 0u);
  const format::LeakRoot root = r.Root(cache);
  EXPECT_EQ(root.name, "g_cache [libfoo.so]");
  EXPECT_EQ(root.kind, format::LeakRootKind::kGlobal);
  EXPECT_EQ(root.module, 3u);
  EXPECT_EQ(root.address, 0x10200u);
  EXPECT_EQ(root.size, 64u);
  // The rest of the mapping is the module's data, named as it always was.
  const leakscan::RootId rest = RootAt(r, 0x11000);
  ASSERT_NE(rest, 0u);
  EXPECT_NE(rest, cache);
  EXPECT_EQ(r.Root(rest).name, "data of libfoo.so");
  EXPECT_EQ(r.Root(rest).kind, format::LeakRootKind::kModuleData);
}

TEST(LeakRootsTest, GlobalsOfOneNameShareARoot) {
  Fixture f;
  const Roots r = f.Build();
  const leakscan::RootId first = RootAt(r, 0x10100), second = RootAt(r, 0x10400);
  ASSERT_NE(first, 0u);
  EXPECT_EQ(first, second);
  EXPECT_EQ(r.Root(first).name, "counter [libfoo.so]");
  EXPECT_EQ(r.Root(first).address, 0x10100u);  // the first one's
  // Roots: the module's data, counter, g_cache.
  EXPECT_EQ(r.roots.size(), 3u);
  EXPECT_EQ(r.global_names.size(), r.roots.size());
}

}  // namespace
}  // namespace heaprec::recorder::launcher
