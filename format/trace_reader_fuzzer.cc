// libFuzzer target for the trace reader: any bytes must give kComplete,
// kTruncated or kError, never a crash, a hang or unbounded memory.
//
//   bazel build --config=fuzz //format:trace_reader_fuzzer
//   bazel-bin/format/trace_reader_fuzzer -max_total_time=60 /tmp/c format/fuzz_corpus
//
// Without --config=fuzz the same source links with fuzz_replay_main.cc and
// replays files or folders given on the command line (the corpus test).
#include <cstddef>
#include <cstdint>

#include "format/fuzz_visitor.h"
#include "format/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  heaprec::format::ReaderOptions options;
  options.max_chunk_bytes = 4 << 20;  // keep each run small
  heaprec::format::FuzzVisitor consumer;
  const heaprec::format::ReadResult r =
      heaprec::format::ReadTraceMemory("fuzz", data, size, consumer, options);
  if (r.status == heaprec::format::ReadResult::kError && r.message.empty()) {
    __builtin_trap();  // every error must say what is wrong
  }
  return 0;
}
