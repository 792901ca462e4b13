// TraceWriter: chunks -> one zstd stream -> sink (see trace_writer.h).
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_createCCtx_advanced (exported)
#include "format/trace_writer.h"

#include <flatbuffers/flatbuffers.h>

#include <algorithm>
#include <vector>

#include "base/large_buffers.h"
#include "format/checksum.h"
#include "format/format_version.h"
#include "format/leak_scan_columns.h"

namespace heaprec::format {

TraceWriter::TraceWriter(ByteSink* sink, const ProcessInfo& process, const Options& options)
    : sink_(sink),
      options_(options),
      cctx_(ZSTD_createCCtx_advanced({base::AllocateLargeBuffer, base::FreeLargeBuffer, nullptr})) {
  level_ = want_level_ = options_.zstd_level;
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, level_);
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_windowLog, options_.window_log);
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_enableLongDistanceMatching,
                         options_.long_distance_matching ? 1 : 0);
  uint8_t header[kHeaderSize];
  EncodeHeader(header);
  if (!sink_->Write(header, sizeof(header))) {
    error_ = sink_->error();
  } else {
    bytes_written_ += sizeof(header);
  }
  chunk_ = std::make_unique<ChunkBuilder>(options_.time_unit_ns, options_.keep_addresses,
                                          options_.blocks_given);
  chunk_->SetProcess(process);
  fbb_ = std::make_unique<flatbuffers::FlatBufferBuilder>(1 << 20);
  packed_.resize(ZSTD_CStreamOutSize());
}

TraceWriter::~TraceWriter() { ZSTD_freeCCtx(cctx_); }

void TraceWriter::MaybeFlush() {
  if (chunk_->event_count() >= options_.max_chunk_events ||
      chunk_->approx_bytes() >= options_.max_chunk_bytes ||
      chunk_->table_count() >= options_.max_chunk_tables) {
    Flush();
  }
  // How many events can come before one of them may reach a limit: each
  // adds one event and at most kMaxEventBytes approx_bytes, no table.
  const size_t events = chunk_->event_count(), bytes = chunk_->approx_bytes();
  const size_t by_count =
      events < options_.max_chunk_events ? options_.max_chunk_events - events : 1;
  const size_t by_bytes =
      bytes < options_.max_chunk_bytes
          ? (options_.max_chunk_bytes - bytes + ChunkBuilder::kMaxEventBytes - 1) /
                ChunkBuilder::kMaxEventBytes
          : 1;
  events_unchecked_ = std::max<size_t>(std::min(by_count, by_bytes), 1);
}

void TraceWriter::AddStackNode(const StackNode& n) {
  chunk_->AddStackNode(n);
  ++totals_.stack_nodes;
  MaybeFlush();
}

void TraceWriter::AddModule(const Module& m) {
  chunk_->AddModule(m);
  MaybeFlush();
}

void TraceWriter::AddModuleUnload(const ModuleUnload& u) {
  chunk_->AddModuleUnload(u);
  MaybeFlush();
}

void TraceWriter::AddThread(const ThreadInfo& t) {
  chunk_->AddThread(t);
  MaybeFlush();
}

void TraceWriter::AddMarker(const Marker& m) {
  chunk_->AddMarker(m);
  MaybeFlush();
}

void TraceWriter::AddRssSample(const RssSample& s) {
  chunk_->AddRssSample(s);
  MaybeFlush();
}

void TraceWriter::AddLeakScan(const LeakScan& s) {
  for (const LeakScan& part : SplitLeakScan(s, kLeakScanPart)) {
    chunk_->AddLeakScan(part);
    if (part.more) {
      Flush();
    } else {
      MaybeFlush();
    }
  }
}

void TraceWriter::AddSymbol(const Symbol& s) {
  chunk_->AddSymbol(s);
  MaybeFlush();
}

bool TraceWriter::Compress(const void* in, size_t n, ZSTD_EndDirective end) {
  ZSTD_inBuffer input = {in, n, 0};
  for (;;) {
    ZSTD_outBuffer out = {packed_.data(), packed_.size(), 0};
    const size_t left = ZSTD_compressStream2(cctx_, &out, &input, end);
    if (ZSTD_isError(left)) {
      error_ = std::string("zstd: ") + ZSTD_getErrorName(left);
      return false;
    }
    if (out.pos > 0) {
      if (!sink_->Write(packed_.data(), out.pos)) {
        error_ = sink_->error();
        return false;
      }
      bytes_written_ += out.pos;
    }
    // ZSTD_e_continue is done when the input is consumed; flush and end when
    // zstd has nothing left to write.
    if (end == ZSTD_e_continue ? input.pos == input.size : left == 0) return true;
  }
}

bool TraceWriter::WriteChunk() {
  const bool new_level = want_level_ != level_;
  const bool frame_full = options_.frame_bytes != 0 && frame_in_ >= options_.frame_bytes;
  if ((new_level || frame_full) && !finished_) {
    // Ends the frame the earlier chunks are in (its last block and
    // checksum), then starts the next one (at the other level).
    if (frame_open_ && !Compress(nullptr, 0, ZSTD_e_end)) return false;
    ZSTD_CCtx_reset(cctx_, ZSTD_reset_session_only);
    if (new_level) {
      ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, want_level_);
      level_ = want_level_;
      ++level_changes_;
    }
    frame_open_ = false;
    frame_in_ = 0;
  }
  chunk_->Finish(*fbb_);
  const uint8_t* data = fbb_->GetBufferPointer();
  const size_t size = fbb_->GetSize();
  const uint32_t crc = ChunkChecksum(data, size);
  uint8_t prefix[kChunkPrefixSize];
  for (int i = 0; i < 4; ++i) {
    prefix[i] = static_cast<uint8_t>(size >> (8 * i));
    prefix[4 + i] = static_cast<uint8_t>(crc >> (8 * i));
  }
  if (!Compress(prefix, sizeof(prefix), ZSTD_e_continue)) return false;
  if (!Compress(data, size, finished_ ? ZSTD_e_end : ZSTD_e_flush)) return false;
  frame_open_ = true;
  frame_in_ += sizeof(prefix) + size;
  ++chunks_written_;
  chunk_ends_.push_back(bytes_written_);
  return true;
}

bool TraceWriter::Flush() {
  if (finished_ || !ok()) return false;
  if (chunk_->empty()) return true;
  const bool written = WriteChunk();
  chunk_->StartNext(++next_index_);
  return written;
}

bool TraceWriter::Finish(const EndRecord& end) {
  if (finished_ || !ok()) return false;
  EndRecord e = end;
  e.events = totals_.events;
  e.allocations = totals_.allocations;
  e.frees = totals_.frees;
  e.reallocs = totals_.reallocs;
  e.bytes_allocated = totals_.bytes_allocated;
  e.stack_nodes = totals_.stack_nodes;
  e.chunks = chunks_written_ + 1;
  chunk_->SetEnd(e);
  finished_ = true;  // WriteChunk ends the zstd frame
  return WriteChunk();
}

}  // namespace heaprec::format
