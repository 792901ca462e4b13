// libFuzzer target for ChunkDecoder alone: raw (decompressed) chunk bytes, so
// the fuzzer reaches FlatBuffers verification and the consistency checks
// without having to forge zstd checksums. An input is a little-endian u32
// length, the first chunk of that length, then the second chunk (the rest):
// two chunks exercise the checks that span chunks.
//
//   bazel build --config=fuzz //format:chunk_decoder_fuzzer
//   bazel-bin/format/chunk_decoder_fuzzer -max_total_time=60 /tmp/c format/fuzz_corpus_chunks
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "format/chunk_decoder.h"
#include "format/fuzz_visitor.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // FlatBuffers wants aligned buffers, as the reader's std::vector gives.
  if (size < 4) return 0;
  size_t split = uint32_t{data[0]} | uint32_t{data[1]} << 8 | uint32_t{data[2]} << 16 |
                 uint32_t{data[3]} << 24;
  data += 4;
  size -= 4;
  if (split > size) split = size;
  const std::vector<uint8_t> first(data, data + split);
  const std::vector<uint8_t> second(data + split, data + size);
  heaprec::format::ChunkDecoder decoder;
  heaprec::format::FuzzVisitor consumer;
  std::string error;
  if (decoder.Decode(first.data(), first.size(), consumer, &error)) {
    decoder.Decode(second.data(), second.size(), consumer, &error);
  }
  return 0;
}
