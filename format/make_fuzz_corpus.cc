// Writes the fuzzers' seed corpora: sample traces of several shapes, whole and
// cut (for trace_reader_fuzzer), and the decompressed chunks of one of them
// in pairs (for chunk_decoder_fuzzer). To regenerate, from the workspace root:
//   bazel run //format:make_fuzz_corpus -- $PWD/format
#include <zstd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "format/format_version.h"
#include "format/test_traces.h"

namespace {

// Decompressed chunks of a whole trace.
std::vector<std::string> Chunks(const std::string& trace) {
  std::vector<std::string> chunks;
  size_t pos = heaprec::format::kHeaderSize;
  while (pos < trace.size()) {
    const size_t n = ZSTD_findFrameCompressedSize(trace.data() + pos, trace.size() - pos);
    const unsigned long long raw = ZSTD_getFrameContentSize(trace.data() + pos, n);
    std::string out(raw, '\0');
    ZSTD_decompress(out.data(), out.size(), trace.data() + pos, n);
    chunks.push_back(out);
    pos += n;
  }
  return chunks;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_fuzz_corpus FORMAT_DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  struct Shape {
    const char* name;
    int events, flush_every;
  };
  const std::vector<Shape> shapes = {
      {"empty_events", 0, 0}, {"one_chunk", 40, 0}, {"many_chunks", 60, 7}};
  for (const Shape& s : shapes) {
    const std::string bytes =
        heaprec::format::testing::SampleTraceBytes(s.events, s.flush_every, 11, nullptr);
    std::ofstream(dir + "/fuzz_corpus/" + s.name + ".zst", std::ios::binary) << bytes;
    std::ofstream(dir + "/fuzz_corpus/" + s.name + "_cut.zst", std::ios::binary)
        << bytes.substr(0, bytes.size() * 2 / 3);
  }
  // chunk_decoder_fuzzer takes u32 length + first chunk + second chunk.
  const std::vector<std::string> chunks =
      Chunks(heaprec::format::testing::SampleTraceBytes(30, 10, 12, nullptr));
  for (size_t i = 0; i + 1 < chunks.size(); ++i) {
    const std::string& a = chunks[i];
    std::string input;
    for (int b = 0; b < 4; ++b) input += static_cast<char>(a.size() >> (8 * b));
    input += a + (i == 0 ? chunks[1] : std::string());
    std::ofstream(dir + "/fuzz_corpus_chunks/chunk" + std::to_string(i), std::ios::binary) << input;
  }
  return 0;
}
