// TraceWriter: chunks -> zstd frames -> sink (see trace_writer.h).
#include "format/trace_writer.h"

#include <flatbuffers/flatbuffers.h>

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
  chunk_ = std::make_unique<ChunkBuilder>(0, 0, 0, 0, 0, options_.time_unit_ns,
                                          options_.address_delta_by_kind);
  chunk_->SetProcess(process);
  fbb_ = std::make_unique<flatbuffers::FlatBufferBuilder>(1 << 20);
}

TraceWriter::~TraceWriter() { ZSTD_freeCCtx(cctx_); }

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

bool TraceWriter::WriteChunk() {
  chunk_->Finish(*fbb_);
  const size_t bound = ZSTD_compressBound(fbb_->GetSize());
  if (bound > packed_capacity_) {
    packed_.reset(new uint8_t[bound]);  // not zeroed: zstd writes it
    packed_capacity_ = bound;
  }
  const size_t n = ZSTD_compress2(cctx_, packed_.get(), packed_capacity_, fbb_->GetBufferPointer(),
                                  fbb_->GetSize());
  if (ZSTD_isError(n)) {
    error_ = std::string("zstd: ") + ZSTD_getErrorName(n);
    return false;
  }
  if (!sink_->Write(packed_.get(), n)) {
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
  const bool written = WriteChunk();
  finished_ = true;
  return written;
}

}  // namespace heaprec::format
