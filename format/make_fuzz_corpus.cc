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

// The chunks of a whole format 2 or 3 trace: its zstd stream decompressed, split
// into records (u32 size, u32 CRC-32, chunk bytes).
std::vector<std::string> Chunks(const std::string& trace) {
  const std::string stream = trace.substr(heaprec::format::kHeaderSize);
  std::string out(ZSTD_getFrameContentSize(stream.data(), stream.size()) == ZSTD_CONTENTSIZE_UNKNOWN
                      ? 64u << 20
                      : ZSTD_getFrameContentSize(stream.data(), stream.size()),
                  '\0');
  out.resize(ZSTD_decompress(out.data(), out.size(), stream.data(), stream.size()));
  std::vector<std::string> chunks;
  size_t pos = 0;
  while (pos + heaprec::format::kChunkPrefixSize <= out.size()) {
    uint32_t size = 0;
    for (int b = 0; b < 4; ++b) size |= uint32_t{static_cast<uint8_t>(out[pos + b])} << (8 * b);
    chunks.push_back(out.substr(pos + heaprec::format::kChunkPrefixSize, size));
    pos += heaprec::format::kChunkPrefixSize + size;
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
    // v<major>_<minor>_: this format (the seeds of earlier formats, from
    // earlier builds, stay as they are; v3_ seeds are 3.4's).
    const std::string prefix = dir + "/fuzz_corpus/v" +
                               std::to_string(heaprec::format::kFormatMajor) + "_" +
                               std::to_string(heaprec::format::kFormatMinor) + "_" + s.name;
    std::ofstream(prefix + ".zst", std::ios::binary) << bytes;
    std::ofstream(prefix + "_cut.zst", std::ios::binary) << bytes.substr(0, bytes.size() * 2 / 3);
  }
  // chunk_decoder_fuzzer takes u32 length + first chunk + second chunk.
  const std::vector<std::string> chunks =
      Chunks(heaprec::format::testing::SampleTraceBytes(30, 10, 12, nullptr));
  for (size_t i = 0; i + 1 < chunks.size(); ++i) {
    const std::string& a = chunks[i];
    std::string input;
    for (int b = 0; b < 4; ++b) input += static_cast<char>(a.size() >> (8 * b));
    input += a + (i == 0 ? chunks[1] : std::string());
    std::ofstream(dir + "/fuzz_corpus_chunks/chunk_v" +
                      std::to_string(heaprec::format::kFormatMajor) + "_" +
                      std::to_string(heaprec::format::kFormatMinor) + "_" + std::to_string(i),
                  std::ios::binary)
        << input;
  }
  return 0;
}
