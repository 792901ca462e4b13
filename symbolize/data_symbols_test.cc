// ReadModuleData and Rebased: a module's data read once at bias 0 and moved
// to a load address equals reading it at that address (the launcher's leak
// scan reads each file once for all the processes that load it), on this
// test's own binary (its .symtab, with a global of its own) and on libc
// (its exports, or its debug file's table).
#include "symbolize/data_symbols.h"

#include <gtest/gtest.h>
#include <link.h>

#include <string>

namespace heaprec::symbolize {
namespace {

// A named variable of this binary, for the lookup below.
volatile uint64_t g_data_symbols_test_global[4] = {1, 2, 3, 4};

struct Loaded {
  std::string path;
  uint64_t bias = 0;
};

// The loaded module whose name contains name_part ("": the main program).
Loaded Find(const std::string& name_part) {
  auto visit = [](dl_phdr_info* info, size_t, void* data) -> int {
    auto* want = static_cast<std::pair<std::string, Loaded>*>(data);
    const std::string name = info->dlpi_name;
    const bool main_program = want->first.empty() && name.empty();
    if (main_program || (!want->first.empty() && name.find(want->first) != std::string::npos)) {
      want->second = {main_program ? "/proc/self/exe" : name, info->dlpi_addr};
      return 1;
    }
    return 0;
  };
  std::pair<std::string, Loaded> want{name_part, {}};
  dl_iterate_phdr(visit, &want);
  return want.second;
}

void ExpectSame(const ModuleData& a, const ModuleData& b) {
  ASSERT_EQ(a.symbols.size(), b.symbols.size());
  for (size_t i = 0; i < a.symbols.size(); ++i) {
    EXPECT_EQ(a.symbols[i].start, b.symbols[i].start) << i;
    EXPECT_EQ(a.symbols[i].size, b.symbols[i].size) << i;
    EXPECT_EQ(a.symbols[i].name, b.symbols[i].name) << i;
  }
  EXPECT_EQ(a.tls_size, b.tls_size);
  EXPECT_EQ(a.tls_align, b.tls_align);
  EXPECT_EQ(a.from_symtab, b.from_symtab);
}

TEST(DataSymbolsTest, RebasedEqualsReadingAtTheBias) {
  const Loaded self = Find("");
  ASSERT_FALSE(self.path.empty());
  const ModuleData at_bias = ReadModuleData(self.path, self.bias, "");
  ASSERT_TRUE(at_bias.from_symtab);
  ExpectSame(Rebased(ReadModuleData(self.path, 0, ""), self.bias), at_bias);
  // The global is found where it is.
  const auto address = reinterpret_cast<uint64_t>(&g_data_symbols_test_global);
  bool seen = false;
  for (const DataSymbol& s : at_bias.symbols) {
    if (s.start == address) {
      seen = true;
      EXPECT_NE(s.name.find("g_data_symbols_test_global"), std::string::npos) << s.name;
      EXPECT_EQ(s.size, sizeof(g_data_symbols_test_global));
    }
  }
  EXPECT_TRUE(seen);

  const Loaded libc = Find("libc.so");
  ASSERT_FALSE(libc.path.empty());
  const ModuleData libc_at_bias = ReadModuleData(libc.path, libc.bias, "");
  EXPECT_FALSE(libc_at_bias.symbols.empty());
  ExpectSame(Rebased(ReadModuleData(libc.path, 0, ""), libc.bias), libc_at_bias);
  // Any other address too (another process's).
  ExpectSame(Rebased(ReadModuleData(libc.path, 0, ""), 0x7f0000000000),
             ReadModuleData(libc.path, 0x7f0000000000, ""));
}

}  // namespace
}  // namespace heaprec::symbolize
