// TraceWriter: chunks -> zstd frames -> sink (see trace_writer.h).
#include "format/trace_writer.h"

#include <vector>

#include "format/format_version.h"

namespace heaprec::format {

TraceWriter::TraceWriter(ByteSink* sink, const ProcessInfo& process, const Options& options)
    : sink_(sink), options_(options), cctx_(ZSTD_createCCtx()) {
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, options_.zstd_level);
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_contentSizeFlag, 1);
  uint8_t header[kHeaderSize];
  EncodeHeader(header);
  if (!sink_->Write(header, sizeof(header))) {
    error_ = sink_->error();
  } else {
    bytes_written_ += sizeof(header);
  }
  StartChunk();
  chunk_->SetProcess(process);
}

TraceWriter::~TraceWriter() { ZSTD_freeCCtx(cctx_); }

void TraceWriter::StartChunk() {
  uint64_t seq = 0, time = 0, address = 0;
  uint32_t stack = 0;
  if (chunk_) {
    seq = chunk_->last_seq();
    time = chunk_->last_time_ns();
    address = chunk_->last_address();
    stack = chunk_->last_stack_id();
  }
  chunk_ = std::make_unique<ChunkBuilder>(next_index_, seq, time, address, stack);
}

void TraceWriter::MaybeFlush() {
  if (chunk_->event_count() >= options_.max_chunk_events ||
      chunk_->approx_bytes() >= options_.max_chunk_bytes ||
      chunk_->table_count() >= options_.max_chunk_tables) {
    Flush();
  }
}

void TraceWriter::AddEvent(const Event& e) {
  if (!chunk_->CanAdd(e)) Flush();
  chunk_->AddEvent(e);
  ++totals_.events;
  switch (e.kind()) {
    case EventKind::kAlloc:
      if (e.address != 0) {
        ++totals_.allocations;
        totals_.bytes_allocated += e.size;
      }
      break;
    case EventKind::kRealloc:
      ++totals_.reallocs;
      if (e.address != 0) totals_.bytes_allocated += e.size;
      break;
    case EventKind::kFree:
      if (e.address != 0) ++totals_.frees;
      break;
    case EventKind::kInvalid:
      break;
  }
  MaybeFlush();
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

void TraceWriter::AddSymbol(const Symbol& s) {
  chunk_->AddSymbol(s);
  MaybeFlush();
}

bool TraceWriter::WriteChunk(ChunkBuilder& chunk) {
  const std::vector<uint8_t> raw = chunk.Finish();
  std::vector<uint8_t> packed(ZSTD_compressBound(raw.size()));
  const size_t n = ZSTD_compress2(cctx_, packed.data(), packed.size(), raw.data(), raw.size());
  if (ZSTD_isError(n)) {
    error_ = std::string("zstd: ") + ZSTD_getErrorName(n);
    return false;
  }
  if (!sink_->Write(packed.data(), n)) {
    error_ = sink_->error();
    return false;
  }
  bytes_written_ += n;
  ++chunks_written_;
  return true;
}

bool TraceWriter::Flush() {
  if (finished_ || !ok()) return false;
  if (chunk_->empty()) return true;
  const bool written = WriteChunk(*chunk_);
  ++next_index_;
  StartChunk();
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
  const bool written = WriteChunk(*chunk_);
  finished_ = true;
  return written;
}

}  // namespace heaprec::format
