// Symbolizes addresses of this test process itself: its own functions (with
// DWARF, built -O1 -g), a function without DWARF, libc, and modules that
// cannot be found.
#include "symbolize/dwarf_symbolizer.h"

#include <dlfcn.h>
#include <elf.h>
#include <gtest/gtest.h>
#include <link.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#include "symbolize/testdata/no_dwarf.h"

// Functions whose return addresses the tests symbolize. Named (not anonymous)
// namespace so that their demangled names are stable; noipa (GCC) keeps them
// from being cloned, merged or looked into by their callers.
#if defined(__clang__)
#define TEST_NOINLINE __attribute__((noinline))
#else
#define TEST_NOINLINE __attribute__((noinline, noipa))
#endif

namespace heaprec::symbolize::symbolizer_test_fns {

TEST_NOINLINE uint64_t ReturnAddress() {
  return reinterpret_cast<uintptr_t>(__builtin_return_address(0));
}

TEST_NOINLINE uint64_t KnownCaller(int* call_line) {
  *call_line = __LINE__ + 1;
  uint64_t address = ReturnAddress();
  asm volatile("" : "+r"(address));  // keeps the call a call, not a tail jump
  return address;
}

__attribute__((always_inline)) inline uint64_t InlinedCallee(int* call_line) {
  *call_line = __LINE__ + 1;
  uint64_t address = ReturnAddress();
  asm volatile("" : "+r"(address));
  return address;
}

TEST_NOINLINE uint64_t InlineHost(int* inner_line, int* call_line) {
  *call_line = __LINE__ + 1;
  uint64_t address = InlinedCallee(inner_line);
  asm volatile("" : "+r"(address));
  return address;
}

// An inlined member of a class template with internal linkage: like many of
// the standard library's inlined frames, it has no linkage name in DWARF.
namespace {
template <typename T>
struct Box {
  __attribute__((always_inline)) uint64_t Get(int* call_line) {
    *call_line = __LINE__ + 1;
    uint64_t address = ReturnAddress();
    asm volatile("" : "+r"(address));
    return address;
  }
  T unused;
};
}  // namespace

TEST_NOINLINE uint64_t TemplateHost(int* inner_line) {
  Box<int> box;
  uint64_t address = box.Get(inner_line);
  asm volatile("" : "+r"(address));
  return address;
}

}  // namespace heaprec::symbolize::symbolizer_test_fns

namespace heaprec::symbolize {
namespace {

namespace fns = symbolizer_test_fns;

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string SelfExe() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf);
  return n > 0 ? std::string(buf, n) : std::string();
}

// The GNU build-id note from a loaded object's PT_NOTE segments.
std::string BuildIdInMemory(const dl_phdr_info* info) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const size_t align = ph.p_align > 4 ? ph.p_align : 4;
    auto round = [align](size_t n) { return (n + align - 1) & ~(align - 1); };
    const char* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
    const char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(p);
      const char* name = p + sizeof(ElfW(Nhdr));
      const char* desc = name + round(note->n_namesz);
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0) {
        return std::string(desc, note->n_descsz);
      }
      p = desc + round(note->n_descsz);
    }
  }
  return "";
}

struct Search {
  uint64_t address = 0;
  std::optional<format::Module> module;
};

// The loaded object containing search->address, described as the recorder
// describes modules.
int FindModule(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  format::Module module;
  bool contains = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const uint64_t start = info->dlpi_addr + ph.p_vaddr;
    module.ranges.push_back({start, start + ph.p_memsz, ph.p_offset});
    contains |= start <= search->address && search->address < start + ph.p_memsz;
  }
  if (!contains) return 0;
  const bool main_program = info->dlpi_name == nullptr || info->dlpi_name[0] == '\0';
  module.path = main_program ? SelfExe() : info->dlpi_name;
  module.build_id = BuildIdInMemory(info);
  module.load_address = info->dlpi_addr;
  search->module = std::move(module);
  return 1;
}

format::Module ModuleContaining(uint64_t address, uint32_t id) {
  Search search;
  search.address = address;
  dl_iterate_phdr(FindModule, &search);
  EXPECT_TRUE(search.module.has_value()) << std::hex << address;
  format::Module module = search.module.value_or(format::Module{});
  module.id = id;
  return module;
}

format::Module TestBinary(uint32_t id) {
  return ModuleContaining(reinterpret_cast<uintptr_t>(&fns::KnownCaller), id);
}

uint64_t LibcPrintf() {
  // The address in libc itself, not a sanitizer's interceptor of printf.
  void* libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(libc, nullptr);
  void* printf_address = libc != nullptr ? dlsym(libc, "printf") : nullptr;
  EXPECT_NE(printf_address, nullptr);
  if (libc != nullptr) dlclose(libc);
  return reinterpret_cast<uintptr_t>(printf_address);
}

std::string Hex(const std::string& bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : bytes) {
    hex += kHex[c >> 4];
    hex += kHex[c & 0xf];
  }
  return hex;
}

std::string TempDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  std::filesystem::path dir = std::filesystem::path(base != nullptr ? base : "/tmp") / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

TEST(DwarfSymbolizerTest, ReturnAddressGivesTheCallersLine) {
  int call_line = 0;
  const uint64_t address = fns::KnownCaller(&call_line);
  DwarfSymbolizer symbolizer;
  symbolizer.AddModule(TestBinary(1));

  const format::Symbol symbol = symbolizer.Symbolize(address, 1);
  EXPECT_EQ(symbol.address, address);
  EXPECT_EQ(symbol.module, 1u);
  ASSERT_EQ(symbol.frames.size(), 1u);
  EXPECT_EQ(symbol.frames[0].function,
            "heaprec::symbolize::symbolizer_test_fns::KnownCaller(int*)");
  EXPECT_TRUE(EndsWith(symbol.frames[0].file, __FILE__)) << symbol.frames[0].file;
  EXPECT_EQ(symbol.frames[0].line, static_cast<uint32_t>(call_line));
  EXPECT_TRUE(symbolizer.MissingModules().empty());

  // Cached, and the same when the module is looked up by address.
  EXPECT_EQ(symbolizer.Symbolize(address, 1), symbol);
  EXPECT_EQ(symbolizer.Symbolize(address, 0), symbol);
}

// UseCache: a second symbolizer takes the frames from the cache file (shown
// by editing the file: its name comes back), and drops them when the
// module's debug files are other ones (another debug directory).
TEST(DwarfSymbolizerTest, SymbolCacheServesLaterRunsUntilTheDebugFilesChange) {
  const std::string cache = TempDir("symbol_cache");
  int call_line = 0;
  const uint64_t address = fns::KnownCaller(&call_line);
  const format::Module module = TestBinary(3);
  ASSERT_FALSE(module.build_id.empty());
  format::Symbol first;
  {
    DwarfSymbolizer symbolizer;
    symbolizer.UseCache(cache);
    symbolizer.AddModule(module);
    first = symbolizer.Symbolize(address, 3);
    ASSERT_EQ(first.frames.size(), 1u);
  }  // saved
  const std::string file = cache + "/" + Hex(module.build_id) + ".symbols";
  std::string text;
  {
    std::ifstream in(file);
    ASSERT_TRUE(in) << file;
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const size_t at = text.find("KnownCaller(int*)");
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, 11, "FromTheCach");  // same length
  std::ofstream(file, std::ios::trunc) << text;
  {
    DwarfSymbolizer symbolizer;
    symbolizer.UseCache(cache);
    symbolizer.AddModule(module);
    const format::Symbol again = symbolizer.Symbolize(address, 3);
    ASSERT_EQ(again.frames.size(), 1u);
    EXPECT_EQ(again.frames[0].function,
              "heaprec::symbolize::symbolizer_test_fns::FromTheCach(int*)");
    EXPECT_EQ(again.frames[0].line, first.frames[0].line);
  }
  {
    DwarfSymbolizer symbolizer(std::vector<std::string>{TempDir("other_debug_dir")});
    symbolizer.UseCache(cache);
    symbolizer.AddModule(module);
    EXPECT_EQ(symbolizer.Symbolize(address, 3), first);  // from DWARF again
  }
}

TEST(DwarfSymbolizerTest, InlinedFrameComesFirstThenTheRealFunctionAtTheCallSite) {
  int inner_line = 0;
  int call_line = 0;
  const uint64_t address = fns::InlineHost(&inner_line, &call_line);
  DwarfSymbolizer symbolizer;
  symbolizer.AddModule(TestBinary(7));

  const format::Symbol symbol = symbolizer.Symbolize(address, 7);
  EXPECT_EQ(symbol.module, 7u);
  ASSERT_EQ(symbol.frames.size(), 2u);
  EXPECT_EQ(symbol.frames[0].function,
            "heaprec::symbolize::symbolizer_test_fns::InlinedCallee(int*)");
  EXPECT_TRUE(EndsWith(symbol.frames[0].file, __FILE__)) << symbol.frames[0].file;
  EXPECT_EQ(symbol.frames[0].line, static_cast<uint32_t>(inner_line));
  EXPECT_EQ(symbol.frames[1].function,
            "heaprec::symbolize::symbolizer_test_fns::InlineHost(int*, int*)");
  EXPECT_TRUE(EndsWith(symbol.frames[1].file, __FILE__)) << symbol.frames[1].file;
  EXPECT_EQ(symbol.frames[1].line, static_cast<uint32_t>(call_line));
  EXPECT_GT(symbol.frames[1].column, 0u);  // DW_AT_call_column
}

TEST(DwarfSymbolizerTest, InlinedTemplateMemberIsQualified) {
  int inner_line = 0;
  const uint64_t address = fns::TemplateHost(&inner_line);
  DwarfSymbolizer symbolizer;
  symbolizer.AddModule(TestBinary(1));

  const format::Symbol symbol = symbolizer.Symbolize(address, 1);
  ASSERT_EQ(symbol.frames.size(), 2u);
  // DW_AT_name, qualified with the namespaces and class around it.
  EXPECT_EQ(symbol.frames[0].function,
            "heaprec::symbolize::symbolizer_test_fns::(anonymous namespace)::Box<int>::Get");
  EXPECT_EQ(symbol.frames[0].line, static_cast<uint32_t>(inner_line));
  EXPECT_EQ(symbol.frames[1].function,
            "heaprec::symbolize::symbolizer_test_fns::TemplateHost(int*)");
}

TEST(DwarfSymbolizerTest, CodeWithoutDwarfGetsTheElfSymbolName) {
  const uint64_t address = testdata::CallWithoutDebugInfo(fns::ReturnAddress);
  DwarfSymbolizer symbolizer;
  // The test binary (linked statically, so its other units have DWARF).
  symbolizer.AddModule(ModuleContaining(address, 2));

  const format::Symbol symbol = symbolizer.Symbolize(address, 2);
  ASSERT_EQ(symbol.frames.size(), 1u);
  EXPECT_EQ(symbol.frames[0].function,
            "heaprec::symbolize::testdata::CallWithoutDebugInfo(unsigned long (*)())");
  EXPECT_EQ(symbol.frames[0].file, "");
  EXPECT_EQ(symbol.frames[0].line, 0u);
}

TEST(DwarfSymbolizerTest, LibcWithoutDebugInfoGetsTheElfSymbolName) {
  const uint64_t address = LibcPrintf() + 1;
  // An empty debug directory: libc's separate debug file (libc6-dbg) is not
  // found, only libc.so.6's own dynamic symbol table remains.
  DwarfSymbolizer symbolizer(TempDir("empty_debug_dir"));
  symbolizer.AddModule(TestBinary(1));
  symbolizer.AddModule(ModuleContaining(address, 2));

  const format::Symbol symbol = symbolizer.Symbolize(address, 0);
  EXPECT_EQ(symbol.module, 2u);
  ASSERT_EQ(symbol.frames.size(), 1u);
  EXPECT_NE(symbol.frames[0].function.find("printf"), std::string::npos)
      << symbol.frames[0].function;
  EXPECT_EQ(symbol.frames[0].file, "");
  EXPECT_EQ(symbol.frames[0].line, 0u);
  EXPECT_TRUE(symbolizer.MissingModules().empty());
  // No debuginfod server is configured (bazel passes no DEBUGINFOD_URLS):
  // the search for libc's debug information stayed local, and libdwfl's
  // debuginfod client (libdebuginfod, curl, GnuTLS...) was never loaded.
  ASSERT_EQ(std::getenv("DEBUGINFOD_URLS"), nullptr);
  void* debuginfod = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_NOLOAD);
  EXPECT_EQ(debuginfod, nullptr);
  if (debuginfod != nullptr) dlclose(debuginfod);
}

TEST(DwarfSymbolizerTest, DebugFileNamedByDebuglinkBesideTheBinaryIsUsed) {
  // objcopy splits the test binary: a copy without DWARF that names, by
  // .gnu_debuglink, a debug file beside it (as many builds ship them).
  int call_line = 0;
  const uint64_t address = fns::KnownCaller(&call_line);
  format::Module split = TestBinary(4);
  const std::string dir = TempDir("debuglink");
  const std::string debug = dir + "/binary.debug";
  const std::string stripped = dir + "/binary";
  ASSERT_EQ(std::system(("objcopy --only-keep-debug '" + split.path + "' '" + debug + "'").c_str()),
            0);
  ASSERT_EQ(
      std::system(("cd '" + dir + "' && objcopy --strip-debug --add-gnu-debuglink=binary.debug '" +
                   split.path + "' binary")
                      .c_str()),
      0);
  split.path = stripped;

  DwarfSymbolizer symbolizer(TempDir("empty_debug_dir_2"));
  symbolizer.AddModule(split);
  const format::Symbol symbol = symbolizer.Symbolize(address, 4);
  ASSERT_EQ(symbol.frames.size(), 1u);
  EXPECT_EQ(symbol.frames[0].function,
            "heaprec::symbolize::symbolizer_test_fns::KnownCaller(int*)");
  EXPECT_EQ(symbol.frames[0].line, static_cast<uint32_t>(call_line));
}

TEST(DwarfSymbolizerTest, LibcWithDebugPackageGetsSourceLines) {
  const uint64_t address = LibcPrintf() + 1;
  const format::Module libc = ModuleContaining(address, 3);
  const std::string hex = Hex(libc.build_id);
  if (hex.size() < 4 || !std::filesystem::exists("/usr/lib/debug/.build-id/" + hex.substr(0, 2) +
                                                 "/" + hex.substr(2) + ".debug")) {
    GTEST_SKIP() << "libc6-dbg is not installed";
  }
  DwarfSymbolizer symbolizer;
  symbolizer.AddModule(libc);

  const format::Symbol symbol = symbolizer.Symbolize(address, 3);
  ASSERT_FALSE(symbol.frames.empty());
  EXPECT_NE(symbol.frames.back().function.find("printf"), std::string::npos)
      << symbol.frames.back().function;
  EXPECT_TRUE(EndsWith(symbol.frames.back().file, "printf.c")) << symbol.frames.back().file;
  EXPECT_GT(symbol.frames.back().line, 0u);
}

TEST(DwarfSymbolizerTest, MissingFilesAndWrongBuildIdsAreReportedNeverSymbolized) {
  int call_line = 0;
  const uint64_t address = fns::KnownCaller(&call_line);
  DwarfSymbolizer symbolizer(TempDir("no_debug_files"));

  format::Module gone = TestBinary(4);
  gone.path = "/nonexistent/libgone.so";
  symbolizer.AddModule(gone);

  format::Module rebuilt = TestBinary(5);
  rebuilt.build_id = std::string("\xde\xad\xbe\xef\x00\x01", 6);
  symbolizer.AddModule(rebuilt);

  format::Module vdso;
  vdso.id = 6;
  vdso.path = "[vdso]";
  vdso.ranges = {{0x1000, 0x2000, 0}};
  symbolizer.AddModule(vdso);

  symbolizer.AddModule(TestBinary(8));  // the same file as 4 and 5, found

  EXPECT_EQ(symbolizer.MissingModules(), (std::vector<uint32_t>{4, 5, 6}));
  for (uint32_t id : {4u, 5u, 6u}) {
    const format::Symbol symbol = symbolizer.Symbolize(address, id);
    EXPECT_EQ(symbol.module, id);
    EXPECT_TRUE(symbol.frames.empty()) << id;
  }
  EXPECT_TRUE(symbolizer.Symbolize(0x1800, 6).frames.empty());
  EXPECT_EQ(symbolizer.Symbolize(address, 8).frames.size(), 1u);

  // Unknown module ids, addresses outside every module and address 0.
  EXPECT_EQ(symbolizer.Symbolize(address, 99), (format::Symbol{address, 0, {}}));
  EXPECT_EQ(symbolizer.Symbolize(0x10, 0), (format::Symbol{0x10, 0, {}}));
  EXPECT_EQ(symbolizer.Symbolize(0, 0), (format::Symbol{0, 0, {}}));
  // Outside the module's file although the caller named the module.
  EXPECT_TRUE(symbolizer.Symbolize(0x10, 8).frames.empty());
}

TEST(DwarfSymbolizerTest, FileIsFoundByBuildIdUnderTheDebugDirectory) {
  int call_line = 0;
  const uint64_t address = fns::KnownCaller(&call_line);
  format::Module moved = TestBinary(3);
  const std::string hex = Hex(moved.build_id);
  ASSERT_GE(hex.size(), 4u) << "the test binary has no build-id";
  const std::string debug_dir = TempDir("debug_dir");
  std::filesystem::create_directories(debug_dir + "/.build-id/" + hex.substr(0, 2));
  std::filesystem::create_symlink(
      moved.path, debug_dir + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug");
  moved.path = "/nonexistent/moved_binary";

  DwarfSymbolizer symbolizer(debug_dir);
  symbolizer.AddModule(moved);
  EXPECT_TRUE(symbolizer.MissingModules().empty());
  const format::Symbol symbol = symbolizer.Symbolize(address, 3);
  ASSERT_EQ(symbol.frames.size(), 1u);
  EXPECT_EQ(symbol.frames[0].function,
            "heaprec::symbolize::symbolizer_test_fns::KnownCaller(int*)");
  EXPECT_EQ(symbol.frames[0].line, static_cast<uint32_t>(call_line));
}

TEST(DwarfSymbolizerTest, DebugFileIsFoundInEveryPlaceUsersKeepIt) {
  // A copy without DWARF naming binary.debug by .gnu_debuglink; its debug
  // file (or an unstripped copy) put in one place at a time, the second of
  // two debug directories searched.
  int call_line = 0;
  const uint64_t address = fns::KnownCaller(&call_line);
  const format::Module original = TestBinary(5);
  const std::string dir = TempDir("debug_places");
  const std::string stripped = dir + "/binary";
  ASSERT_EQ(
      std::system(("cd '" + dir + "' && objcopy --only-keep-debug '" + original.path +
                   "' binary.debug && objcopy --strip-debug --add-gnu-debuglink=binary.debug '" +
                   original.path + "' binary && rm binary.debug")
                      .c_str()),
      0);
  const std::string debug_dir = TempDir("debug_places_dir");
  struct Place {
    const char* what;
    std::string path;  // where the debug file (or an unstripped copy) goes
    bool unstripped;
  };
  const Place places[] = {
      {"the .debug folder beside it", dir + "/.debug/binary.debug", false},
      {"DIR + its folder + debuglink", debug_dir + dir + "/binary.debug", false},
      {"DIR/debuglink", debug_dir + "/binary.debug", false},
      {"DIR + its path (a sysroot)", debug_dir + stripped, true},
      {"DIR/its file name", debug_dir + "/binary", true},
  };
  for (const Place& place : places) {
    SCOPED_TRACE(place.what);
    std::filesystem::create_directories(std::filesystem::path(place.path).parent_path());
    if (place.unstripped) {
      std::filesystem::copy_file(original.path, place.path);
    } else {
      ASSERT_EQ(
          std::system(
              ("objcopy --only-keep-debug '" + original.path + "' '" + place.path + "'").c_str()),
          0);
    }
    format::Module module = original;
    module.path = stripped;
    DwarfSymbolizer symbolizer(std::vector<std::string>{TempDir("debug_places_empty"), debug_dir});
    symbolizer.AddModule(module);
    const format::Symbol symbol = symbolizer.Symbolize(address, 5);
    ASSERT_EQ(symbol.frames.size(), 1u);
    EXPECT_EQ(symbol.frames[0].function,
              "heaprec::symbolize::symbolizer_test_fns::KnownCaller(int*)");
    EXPECT_EQ(symbol.frames[0].line, static_cast<uint32_t>(call_line));
    std::filesystem::remove(place.path);
    // Without it, the symbol table alone: a name but no line.
    DwarfSymbolizer without(std::vector<std::string>{debug_dir});
    without.AddModule(module);
    const format::Symbol bare = without.Symbolize(address, 5);
    ASSERT_EQ(bare.frames.size(), 1u);
    EXPECT_EQ(bare.frames[0].line, 0u);
  }
}

TEST(DwarfSymbolizerTest, ModulesSharingAddressesStaySeparate) {
  int call_line = 0;
  const uint64_t address = fns::KnownCaller(&call_line);
  DwarfSymbolizer symbolizer(TempDir("overlap_debug_dir"));
  symbolizer.AddModule(TestBinary(1));
  // A later module at the same addresses (dlclose, then dlopen of another
  // library there) whose file is gone.
  format::Module later = TestBinary(2);
  later.path = "/nonexistent/libother.so";
  later.build_id = "\x01\x02\x03\x04";
  symbolizer.AddModule(later);

  EXPECT_EQ(symbolizer.Symbolize(address, 1).frames.size(), 1u);
  EXPECT_TRUE(symbolizer.Symbolize(address, 2).frames.empty());
  // Module 0: the module added last that contains the address.
  EXPECT_EQ(symbolizer.Symbolize(address, 0).module, 2u);

  // Adding id 2 again replaces it and forgets what was cached for it.
  symbolizer.AddModule(TestBinary(2));
  EXPECT_TRUE(symbolizer.MissingModules().empty());
  EXPECT_EQ(symbolizer.Symbolize(address, 2).frames.size(), 1u);
}

}  // namespace
}  // namespace heaprec::symbolize
