// BackgroundSymbolizer gives, for addresses of this test binary, exactly what
// a DwarfSymbolizer gives on the caller's thread; it can be finished with
// nothing queued, and destroyed without Finish.
#include "recorder/launcher/background_symbolizer.h"

#include <gtest/gtest.h>
#include <link.h>
#include <unistd.h>

#include <climits>
#include <string>
#include <vector>

#include "symbolize/dwarf_symbolizer.h"

namespace heaprec::recorder::launcher {
namespace {

__attribute__((noinline)) uint64_t ReturnAddress() {
  return reinterpret_cast<uintptr_t>(__builtin_return_address(0));
}

__attribute__((noinline)) uint64_t Caller() {
  uint64_t address = ReturnAddress();
  asm volatile("" : "+r"(address));  // keeps the call a call
  return address;
}

// The test binary as the recorder logs modules (the first object
// dl_iterate_phdr reports is the main program).
int First(dl_phdr_info* info, size_t, void* data) {
  auto* m = static_cast<format::Module*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const uint64_t start = info->dlpi_addr + ph.p_vaddr;
    m->ranges.push_back({start, start + ph.p_memsz, ph.p_offset});
  }
  m->load_address = info->dlpi_addr;
  return 1;
}

format::Module TestBinary() {
  format::Module m;
  m.id = 1;
  char path[PATH_MAX] = {};
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n > 0) m.path.assign(path, static_cast<size_t>(n));
  dl_iterate_phdr(First, &m);
  return m;
}

TEST(BackgroundSymbolizerTest, SameSymbolsAsOnTheCallersThread) {
  const format::Module module = TestBinary();
  const std::vector<uint64_t> addresses = {Caller(), reinterpret_cast<uintptr_t>(&Caller) + 1,
                                           reinterpret_cast<uintptr_t>(&First) + 1, 0x10};
  symbolize::DwarfSymbolizer direct;
  direct.AddModule(module);
  BackgroundSymbolizer background;
  background.AddModule(module);
  for (uint64_t a : addresses) background.Symbolize(a, 1);
  const std::map<uint64_t, format::Symbol> got = background.Finish();
  ASSERT_EQ(got.size(), addresses.size());
  for (uint64_t a : addresses) {
    format::Symbol want = direct.Symbolize(a, 1);
    want.address = a;
    want.module = 1;
    ASSERT_EQ(got.count(a), 1u) << std::hex << a;
    EXPECT_EQ(got.at(a), want) << std::hex << a;
  }
  // The caller's frame is named: the comparison is not between two empties.
  ASSERT_FALSE(got.at(addresses[0]).frames.empty());
  EXPECT_NE(got.at(addresses[0]).frames.back().function.find("Caller"), std::string::npos);
}

TEST(BackgroundSymbolizerTest, FinishWithNothingQueuedAndDestroyWithoutFinish) {
  BackgroundSymbolizer idle;
  EXPECT_TRUE(idle.Finish().empty());
  BackgroundSymbolizer dropped;
  dropped.AddModule(TestBinary());
  dropped.Symbolize(Caller(), 1);
}  // ~BackgroundSymbolizer stops the worker, dropping what is queued

}  // namespace
}  // namespace heaprec::recorder::launcher
