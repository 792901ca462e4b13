// heaprec on tests/programs/small_stacks.c: eight threads started with the
// smallest stack glibc allows (PTHREAD_STACK_MIN) all start and run under
// heaprec as they do bare, and the trace holds exactly their allocations per
// call site, also what they allocate as they exit, after giving their
// per-thread block back. Two things had to hold for that (recorder/preload/
// thread_block.h): libheaprec.so's static TLS, which glibc carves out of
// every thread's stack, stays small (checked here on the built library's
// PT_TLS segment, with libelf), and the recorder's own stack use on the
// program's stack stays small (the unwinder's slow path runs on a spare
// stack of its own).
#include <fcntl.h>
#include <gelf.h>
#include <gtest/gtest.h>
#include <libelf.h>
#include <unistd.h>

#include <cstdint>

#include "format/api.h"
#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

using format::Api;

constexpr char kExpectedOutput[] = "small_stacks: 8 of 8 threads ran\n";

// The PT_TLS segment's memory size of the ELF file at path (0 if it has
// none); a failure is reported and gives UINT64_MAX.
uint64_t StaticTlsBytes(const std::string& path) {
  elf_version(EV_CURRENT);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    ADD_FAILURE() << path << ": cannot open";
    return UINT64_MAX;
  }
  uint64_t tls = UINT64_MAX;
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  size_t count = 0;
  if (elf == nullptr || elf_getphdrnum(elf, &count) != 0) {
    ADD_FAILURE() << path << ": not an ELF file: " << elf_errmsg(-1);
  } else {
    tls = 0;
    for (size_t i = 0; i < count; ++i) {
      GElf_Phdr phdr;
      if (gelf_getphdr(elf, static_cast<int>(i), &phdr) != nullptr && phdr.p_type == PT_TLS) {
        tls = phdr.p_memsz;
      }
    }
  }
  if (elf != nullptr) elf_end(elf);
  close(fd);
  return tls;
}

TEST(SmallStacksTest, LibheaprecStaticTlsStaysSmall) {
  const uint64_t tls = StaticTlsBytes(Runfile("recorder/libheaprec.so"));
  // ThreadState (64 bytes), SignalHold's flag and the ThreadBlock pointer
  // today; every thread of every traced program pays for this much stack.
  EXPECT_GT(tls, 0u);
  EXPECT_LE(tls, 256u) << "libheaprec.so's static TLS grew: large per-thread state belongs in "
                          "recorder/preload/thread_block.h";
}

TEST(SmallStacksTest, ThreadsWithTheSmallestStacksStartAndAreRecorded) {
  // Bare, the program starts its threads (the test's premise).
  const ProcessResult bare = RunProgram({Runfile("tests/small_stacks")});
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  ASSERT_EQ(bare.out, kExpectedOutput);

  const TraceSummary s =
      RecordOneTrace("small_stacks", {Runfile("tests/small_stacks")}, 0, kExpectedOutput);
  // Five malloc(40 + 8 * i) per thread, each freed.
  ExpectSite(s, "small_alloc",
             {.calls = {{Api::kMalloc, 40}},
              .allocations = 40,
              .bytes = 2720,
              .released_by = {{Api::kFree, 40}}});
  ExpectSite(s, "small_leak",
             {.calls = {{Api::kCalloc, 8}},
              .allocations = 8,
              .bytes = 800,
              .leaked_blocks = 8,
              .leaked_bytes = 800});
  // In a destructor that runs after the thread gave its block back: the
  // shared block's (thread_block.h).
  ExpectSite(s, "small_exit",
             {.calls = {{Api::kMalloc, 8}},
              .allocations = 8,
              .bytes = 192,
              .released_by = {{Api::kFree, 8}}});
  // (An exiting thread records on with the shared ring, under one thread
  // number: small_exit's events are not counted per thread here.)
  for (const char* name : {"small_alloc", "small_leak"}) {
    const SiteStats* site = s.Site(name);
    ASSERT_NE(site, nullptr) << name;
    EXPECT_EQ(site->threads.size(), 8u) << name;
  }
  EXPECT_EQ(s.Counter("unwind_failures"), 0);
  // The exiting threads' stacks were unwound in a borrowed block.
  EXPECT_EQ(s.Counter("unwind_skipped"), 0);
}

}  // namespace
}  // namespace heaprec::tests
