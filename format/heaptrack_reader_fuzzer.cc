// libFuzzer target for the heaptrack reader: any bytes (plain, zstd or gzip)
// must give kComplete, kTruncated or kError, never a crash or a hang.
//
//   bazel build --config=fuzz //format:heaptrack_reader_fuzzer
//   bazel-bin/format/heaptrack_reader_fuzzer -max_total_time=60 /tmp/c format/fuzz_corpus_heaptrack
//
// The reader reads files: each input goes to a memfd read by its
// /proc/self/fd path. Without --config=fuzz the same source links with
// fuzz_replay_main.cc and replays files or folders (the corpus test).
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "format/fuzz_visitor.h"
#include "format/heaptrack_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int fd = memfd_create("heaptrack_fuzz", MFD_CLOEXEC);
  if (fd < 0) return 0;
  size_t done = 0;
  while (done < size) {
    const ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (heaprec::format::IsHeaptrackFile(path)) {
    heaprec::format::FuzzVisitor consumer;
    const heaprec::format::ReadResult r = heaprec::format::ReadHeaptrackFile(path, consumer);
    if (r.status != heaprec::format::ReadResult::kComplete && r.message.empty()) {
      __builtin_trap();  // every error and every cut must say what is wrong
    }
  }
  close(fd);
  return 0;
}
