// trace_size_breakdown: which event columns a heaprec trace's bytes go to.
//
//   trace_size_breakdown TRACE [frames]
//
// With "frames": only "as is" and the zstd frame variants (what ending the
// frame every GiB, for heapreplay's trace index, costs).
// Reads TRACE and re-encodes it several times with format/TraceWriter (the
// launcher's options: millisecond times, no addresses, default chunking and
// zstd settings), each time with one event column made constant, and prints a
// Markdown table of the compressed sizes. What a column costs is the size with it minus the
// size without it ("no frees" drops the frees, "no symbols" the symbols). Re-encoding "as is" gives
// a size close to the original's (chunk boundaries may differ from the launcher's); "no events"
// keeps only stacks, modules, symbols and threads. A diagnostic for docs/BENCHMARKS.md, not part of
// heaprec.
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "format/byte_io.h"
#include "format/records.h"
#include "format/trace_reader.h"
#include "format/trace_visitor.h"
#include "format/trace_writer.h"

namespace heaprec::format {
namespace {

// Counts what the writer would write.
class CountingSink : public ByteSink {
 public:
  bool Write(const void*, size_t n) override {
    bytes += n;
    return true;
  }
  const std::string& error() const override { return error_; }
  uint64_t bytes = 0;

 private:
  std::string error_;
};

enum Blank : unsigned {
  kNone = 0,
  kTime = 1u << 0,
  kSize = 1u << 2,
  kStack = 1u << 3,
  kThread = 1u << 4,
  kEvents = 1u << 5,        // drop events (and markers) altogether
  kFrees = 1u << 6,         // drop the frees
  kSymbols = 1u << 7,       // drop the symbols
  kEmptySymbols = 1u << 8,  // drop the symbols without frames
  kFreeSize = 1u << 9,      // the sizes of frees (sized delete, free_sized) 0
  kFrames = 1u << 10,       // a new zstd frame every GiB, as the launcher writes
  kSmallFrames = 1u << 11,  // ... every 256 MiB
};

// Replays every record into a writer, blanking the chosen columns.
class Reencoder : public TraceVisitor {
 public:
  Reencoder(unsigned blank, CountingSink* sink) : blank_(blank), sink_(sink) {}

  void OnProcess(const ProcessInfo& p) override {
    TraceWriter::Options options;
    options.time_unit_ns = 1000 * 1000;  // as the launcher writes
    options.keep_addresses = false;
    options.blocks_given = true;  // the trace may hold no addresses
    options.window_log = 24;      // as the launcher writes
    if ((blank_ & kFrames) != 0) options.frame_bytes = uint64_t{1} << 30;
    if ((blank_ & kSmallFrames) != 0) options.frame_bytes = uint64_t{1} << 28;
    writer_ = std::make_unique<TraceWriter>(sink_, p, options);
  }
  void OnModule(const Module& m) override { writer_->AddModule(m); }
  void OnModuleUnload(const ModuleUnload& u) override { writer_->AddModuleUnload(u); }
  void OnThread(const ThreadInfo& t) override { writer_->AddThread(t); }
  void OnStackNode(const StackNode& n) override { writer_->AddStackNode(n); }
  void OnSymbol(const Symbol& s) override {
    if ((blank_ & kSymbols) != 0) return;
    if ((blank_ & kEmptySymbols) != 0 && s.frames.empty()) return;
    writer_->AddSymbol(s);
  }
  void OnMarker(const Marker& m) override {
    if ((blank_ & kEvents) == 0) writer_->AddMarker(m);
  }
  void OnEvent(const Event& e) override {
    if ((blank_ & kEvents) != 0) return;
    if ((blank_ & kFrees) != 0 && e.kind() == EventKind::kFree) return;
    Event c = e;
    if ((blank_ & kTime) != 0) c.time_ns = 0;
    if ((blank_ & kSize) != 0) c.size = 0;
    if ((blank_ & kFreeSize) != 0 && e.kind() == EventKind::kFree) c.size = 0;
    if ((blank_ & kStack) != 0) c.stack = 0;
    if ((blank_ & kThread) != 0) c.thread = 1;
    writer_->AddEvent(c);
  }
  void OnEnd(const EndRecord& e) override {
    writer_->Finish(e);
    finished_ = true;
  }
  bool finished() const { return finished_; }

 private:
  unsigned blank_;
  CountingSink* sink_;
  std::unique_ptr<TraceWriter> writer_;
  bool finished_ = false;
};

}  // namespace
}  // namespace heaprec::format

int main(int argc, char** argv) {
  using namespace heaprec::format;
  const bool frames_only = argc == 3 && std::string(argv[2]) == "frames";
  if (argc != 2 && !frames_only) {
    std::fprintf(stderr, "usage: trace_size_breakdown TRACE [frames]\n");
    return 2;
  }
  struct Variant {
    const char* name;
    unsigned blank;
  };
  const std::vector<Variant> variants = {
      {"as is", kNone},
      {"time constant", kTime},
      {"sizes constant", kSize},
      {"stacks constant", kStack},
      {"thread constant", kThread},
      {"no frees", kFrees},
      {"free sizes 0", kFreeSize},
      {"no symbols", kSymbols},
      {"no symbols without frames", kEmptySymbols},
      {"no events", kEvents},
      {"a zstd frame every GiB", kFrames},
      {"a zstd frame every 256 MiB", kSmallFrames},
  };
  uint64_t base = 0;
  std::printf("| re-encoded | bytes | saved vs as is |\n|---|---:|---:|\n");
  for (const Variant& v : variants) {
    if (frames_only && v.blank != kNone && v.blank != kFrames && v.blank != kSmallFrames) continue;
    CountingSink sink;
    Reencoder re(v.blank, &sink);
    const ReadResult r = ReadTraceFile(argv[1], re);
    if (r.status == ReadResult::kError || !re.finished()) {
      std::fprintf(stderr, "trace_size_breakdown: %s: %s\n", argv[1],
                   r.message.empty() ? "incomplete trace" : r.message.c_str());
      return 1;
    }
    if (v.blank == kNone) base = sink.bytes;
    std::printf("| %s | %" PRIu64 " | %.1f%% |\n", v.name, sink.bytes,
                base == 0 ? 0.0 : 100.0 * (static_cast<double>(base) - sink.bytes) / base);
  }
  return 0;
}
