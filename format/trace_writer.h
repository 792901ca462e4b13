// TraceWriter: appends records to a trace and writes it as a header followed
// by one zstd stream of length-prefixed chunks (format 2, format/FORMAT.md).
//
// Usage:
//   TraceWriter w(sink, process_info);     // writes the header
//   w.AddThread(...); w.AddStackNode(...); w.AddEvent(...); ...
//   w.Flush();                             // optional: ends the current chunk
//   w.Finish(end_record);                  // writes the last chunk
// Records added between flushes go into one chunk; the writer also flushes by
// itself when a chunk reaches Options' limits. Each chunk is flushed through
// zstd (ZSTD_e_flush) as it is written, so a trace cut after any chunk still
// reads up to that chunk, while compression uses the whole history (repeated
// patterns far apart in the program's run cost almost nothing).
//
// SetFastCompression switches between Options::zstd_level and the cheaper
// fast_zstd_level from the next chunk on: the zstd frame ends after the
// current chunk and the next chunk starts a new frame at the other level (a
// level cannot change inside a frame; readers take the frames one after the
// other, as they always have; the new frame starts without history).
//
// Preconditions (the reader rejects traces that break them): event seqs
// increase; stack node ids are 1, 2, 3... and a node's parent is an earlier
// node or 0; marker seqs increase and lie after the events before them.
//
// Not thread-safe; allocates; used by the heaprec launcher (which owns
// ordering) and by tests. Never used inside the traced process.
#ifndef HEAPREC_FORMAT_TRACE_WRITER_H_
#define HEAPREC_FORMAT_TRACE_WRITER_H_

#include <zstd.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "format/byte_io.h"
#include "format/chunk_builder.h"
#include "format/records.h"

namespace heaprec::format {

class TraceWriter {
 public:
  struct Options {
    int zstd_level = 3;
    size_t max_chunk_events = 64 * 1024;
    size_t max_chunk_bytes = 8 << 20;      // approximate FlatBuffer size
    size_t max_chunk_tables = 200 * 1000;  // reader's verifier allows more
    uint32_t time_unit_ns = 1;             // event times are rounded down to this
    bool keep_addresses = true;            // store every event's addresses
    // Events come with block and old_block set, as a reader delivers them
    // (for re-encoding a trace that holds no addresses); else blocks are
    // numbered from the addresses.
    bool blocks_given = false;
    // zstd history, log2 bytes. A reader allocates this much per trace; the
    // heaprec launcher asks for 24 (16 MiB), which is what makes repeated
    // patterns minutes apart cheap. The small default suits small traces.
    int window_log = 20;
    bool long_distance_matching = true;  // zstd's long-range mode
    int fast_zstd_level = 1;             // see SetFastCompression
    // Non-zero: the zstd frame ends after the first chunk that brings it to
    // this many bytes (before compression), and the next chunk starts a new
    // frame, so that a reader can start decompressing there (heapreplay's
    // trace index skips to the frame before the moment it is asked about).
    // A new frame starts without history: with a 16 MiB window, a frame of
    // 1 GiB costs the trace ~nothing.
    uint64_t frame_bytes = 0;
  };

  // Writes the header to sink (which must outlive the writer). The process
  // record goes into the first chunk.
  TraceWriter(ByteSink* sink, const ProcessInfo& process, const Options& options);
  TraceWriter(ByteSink* sink, const ProcessInfo& process) : TraceWriter(sink, process, Options()) {}
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Inline: the launcher calls it for every event.
  void AddEvent(const Event& e) {
    chunk_->AddEvent(e);
    ++totals_.events;
    if (e.kind() == EventKind::kRealloc) ++totals_.reallocs;
    if (e.CountsAsAllocation()) {
      ++totals_.allocations;
      totals_.bytes_allocated += e.size;
    }
    if (e.CountsAsFree()) ++totals_.frees;
    if (--events_unchecked_ == 0) MaybeFlush();
  }
  // A hint that an event at address (or freeing, or reallocating from it)
  // comes soon; see ChunkBuilder::Prefetch.
  void Prefetch(uint64_t address) const { chunk_->Prefetch(address); }
  bool PrefetchPays() const { return chunk_->PrefetchPays(); }
  void AddStackNode(const StackNode& n);
  void AddModule(const Module& m);
  void AddModuleUnload(const ModuleUnload& u);
  void AddThread(const ThreadInfo& t);
  void AddMarker(const Marker& m);
  void AddSymbol(const Symbol& s);
  // A leak scan (3.1). A large one is written in parts of kLeakScanPart
  // blocks, each ending its chunk, so that no chunk outgrows kMaxChunkBytes.
  void AddLeakScan(const LeakScan& s);
  static constexpr size_t kLeakScanPart = size_t{1} << 20;
  // An RSS sample (3.4): seq and time never below the previous sample's,
  // and added after every event with a smaller seq.
  void AddRssSample(const RssSample& s);

  // Ends the current chunk (if it holds anything) and writes it out.
  bool Flush();
  // Compress the chunks after the current one at fast_zstd_level (true) or
  // zstd_level (false). Cheap to call often: only a change does anything.
  void SetFastCompression(bool fast) {
    want_level_ = fast ? options_.fast_zstd_level : options_.zstd_level;
  }
  // How many times the level changed (each change ends a zstd frame).
  uint64_t level_changes() const { return level_changes_; }
  // Writes everything left plus the end record as the last chunk. The
  // writer's own totals (events, allocations, frees, reallocs,
  // bytes_allocated, stack_nodes, chunks) replace those fields of end.
  bool Finish(const EndRecord& end);

  // False once a write failed; error() says why.
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  uint64_t bytes_written() const { return bytes_written_; }
  uint64_t chunks_written() const { return chunks_written_; }
  // The file offset just past each chunk written so far (where a cut still
  // leaves that chunk whole).
  const std::vector<uint64_t>& chunk_ends() const { return chunk_ends_; }
  const Options& options() const { return options_; }
  const EndRecord& totals() const { return totals_; }
  // Calls f(address, block, size) for every block live after the events
  // added so far, in no order (the blocks a leak scan classifies). Only for
  // a writer that numbers blocks from addresses (Options::blocks_given false).
  template <typename F>
  void ForEachLiveBlock(F&& f) const {
    chunk_->blocks().ForEachLive(f);
  }
  // Bytes of the blocks live after the events added so far, and the most
  // there were after any of them (same condition as ForEachLiveBlock).
  uint64_t live_bytes() const { return chunk_->blocks().live_bytes(); }
  uint64_t peak_bytes() const { return chunk_->blocks().peak_bytes(); }

 private:
  // Flushes if the chunk reached a limit, and sets events_unchecked_.
  void MaybeFlush();
  bool WriteChunk();
  // Compresses in[0, n) with the given end directive and writes the output.
  bool Compress(const void* in, size_t n, ZSTD_EndDirective end);

  ByteSink* sink_;
  Options options_;
  ZSTD_CCtx* cctx_;
  std::unique_ptr<ChunkBuilder> chunk_;
  std::unique_ptr<flatbuffers::FlatBufferBuilder> fbb_;  // reused for every chunk
  std::vector<uint8_t> packed_;                          // reused zstd output
  // Events AddEvent may add before it calls MaybeFlush (each call of which
  // sets it): none of them can bring the chunk to a limit before then.
  size_t events_unchecked_ = 1;
  uint32_t next_index_ = 0;
  int level_ = 0;            // the level of the open frame
  int want_level_ = 0;       // the level for the next chunk
  uint64_t frame_in_ = 0;    // bytes put into the open frame (Options::frame_bytes)
  bool frame_open_ = false;  // a chunk went into the current frame
  uint64_t level_changes_ = 0;
  uint64_t bytes_written_ = 0;
  uint64_t chunks_written_ = 0;
  std::vector<uint64_t> chunk_ends_;
  EndRecord totals_;
  bool finished_ = false;
  std::string error_;
};

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_TRACE_WRITER_H_
