// ChunkDecoder: the pipeline verify -> load -> check -> deliver, over the
// stages in format/internal/ for the trace's column layout (format 1: fixed
// width; formats 2 and 3: varints).
#include "format/chunk_decoder.h"

#include <flatbuffers/flatbuffers.h>

#include <algorithm>

#include "format/internal/chunk_checks.h"
#include "format/internal/chunk_columns.h"
#include "format/internal/chunk_delivery.h"
#include "format/internal/fixed_columns.h"
#include "format/internal/varint_columns.h"
#include "format/internal/varint_events.h"
#include "format/trace_generated.h"

namespace heaprec::format {
namespace {

using detail::ColumnLayout;
using detail::Columns;
using detail::Len;

// Per-chunk table limit for the verifier; TraceWriter flushes well below it.
constexpr flatbuffers::uoffset_t kMaxTables = 4 * 1000 * 1000;

// FlatBuffers' verifier checks each vector's length field but not that 8-byte
// elements are 8-byte aligned; a damaged chunk can misalign them. (Empty
// vectors may be misaligned even in good chunks; they are never read.)
template <typename T>
bool Aligned(const flatbuffers::Vector<T>* v) {
  return v == nullptr || v->size() == 0 || reinterpret_cast<uintptr_t>(v->Data()) % alignof(T) == 0;
}

bool ColumnsAligned(const fb::Chunk& c) {
  if (!Aligned(c.time_delta()) || !Aligned(c.address_delta()) || !Aligned(c.size()) ||
      !Aligned(c.alignment()) || !Aligned(c.old_address()) || !Aligned(c.stack_address()) ||
      !Aligned(c.block_ref()) || !Aligned(c.raw_address())) {
    return false;
  }
  if (c.modules()) {
    for (const fb::Module* m : *c.modules()) {
      if (!Aligned(m->ranges())) return false;
    }
  }
  return true;
}

// Verify: the buffer is a Chunk FlatBuffer whose 8-byte columns are aligned,
// with the expected index. Returns it, or nullptr with *error set.
const fb::Chunk* Verify(const uint8_t* data, size_t size, uint32_t index, std::string* error) {
  if (reinterpret_cast<uintptr_t>(data) % 8 != 0) {
    *error = "chunk buffer is not 8-byte aligned";  // a caller's mistake
    return nullptr;
  }
  flatbuffers::Verifier verifier(data, size, /*max_depth=*/16, kMaxTables);
  if (!fb::VerifyChunkBuffer(verifier)) {
    *error = "chunk fails FlatBuffers verification";
    return nullptr;
  }
  const fb::Chunk* c = fb::GetChunk(data);
  if (!ColumnsAligned(*c)) {
    *error = "misaligned column";
    return nullptr;
  }
  if (c->index() != index) {
    *error = "chunk index " + std::to_string(c->index()) + ", expected " + std::to_string(index);
    return nullptr;
  }
  return c;
}

// A scan whose next part comes in the next chunk ends this one: no event
// here may come after it.
bool LeakScanEndsChunk(const Columns& k, bool fixed, const OpenLeakScan& open, std::string* error) {
  if (!open.open || fixed || k.n == 0 || k.last_seq < open.seq) return true;
  *error = "events after a leak scan that continues in the next chunk";
  return false;
}

}  // namespace

ChunkDecoder::ChunkDecoder(FormatVersion version)
    : version_(version), columns_(std::make_unique<Columns>()) {}
ChunkDecoder::~ChunkDecoder() = default;
ChunkDecoder::ChunkDecoder(ChunkDecoder&&) = default;
ChunkDecoder& ChunkDecoder::operator=(ChunkDecoder&&) = default;

bool ChunkDecoder::Decode(const uint8_t* data, size_t size, TraceVisitor& visitor,
                          std::string* error) {
  if (seen_end_) {
    *error = "data after the end chunk";
    return false;
  }
  const fb::Chunk* chunk = Verify(data, size, next_index_, error);
  if (chunk == nullptr) return false;
  const fb::Chunk& c = *chunk;
  const ColumnLayout layout = detail::LayoutOf(version_);
  const bool fixed = layout == ColumnLayout::kFixed;
  Columns& k = *columns_;

  // Load: the columns as numbers.
  if (c.process()) k.sample_rate = c.process()->sample_rate();
  if (fixed ? !detail::LoadFixedColumns(c, &k, error)
            : !detail::LoadVarintColumns(c, layout, last_stack_id_, &size_by_stack_, blocks_made_,
                                         &thread_blocks_, &pieces_, &k, error)) {
    return false;
  }

  // Check: the whole chunk, before any of it is delivered (the last check
  // of formats 2 and 3 also writes the events as they are delivered).
  size_t pieces = 0;
  const uint32_t max_stack = last_stack_id_ + static_cast<uint32_t>(k.stack_parent.size());
  uint64_t made_after = blocks_made_;
  OpenLeakScan open_scan = open_scan_;
  RssSample last_rss = last_rss_;
  if (!detail::CheckStacks(c, k, last_stack_id_, error) ||
      !(fixed ? detail::CheckEvents(c, k, last_event_seq_, max_stack, layout, error)
              : detail::CheckVarintEvents(c, k, last_event_seq_, layout, error)) ||
      !(fixed ? detail::CheckFixedSeqs(c, k, error)
              : detail::CheckVarintSeqs(k, last_seq_, error)) ||
      !detail::CheckMarkers(c, last_seq_, error) ||
      !detail::LoadLeakScans(c, last_seq_, &open_scan, &k, error) ||
      !LeakScanEndsChunk(k, fixed, open_scan, error) ||
      !detail::LoadRssSamples(c, last_event_seq_, &last_rss, &k, error) ||
      !detail::LoadSymbols(c, &k, error) ||
      !(fixed ? detail::CheckAddresses(c, k, error)
              : detail::ResolveEvents(c, &k, &made_after, &thread_blocks_, &pieces_, &pieces,
                                      error))) {
    return false;
  }

  // Deliver: in FORMAT.md's order.
  if (c.process()) detail::DeliverProcess(*c.process(), visitor);
  detail::DeliverTables(c, visitor);
  detail::DeliverStacksAndSymbols(c, k, visitor);
  const size_t n = k.n;
  const size_t n_markers = Len(c.markers());
  if (n > 0 || n_markers > 0 || !k.leak_scans.empty() || !k.rss_samples.empty()) {
    if (fixed) pieces = detail::FillFixedEvents(c, k, &blocks_, &pieces_);
    const uint64_t last = detail::DeliverEvents(c, k, pieces, &pieces_, visitor);
    if (n > 0) last_seq_ = last_event_seq_ = last;
    // Later events must come after the last marker and scan.
    if (n_markers > 0 && c.markers()->Get(n_markers - 1)->seq() > last_seq_ + 1) {
      last_seq_ = c.markers()->Get(n_markers - 1)->seq() - 1;
    }
    if (!k.leak_scans.empty() && k.leak_scans.back().seq > last_seq_ + 1) {
      last_seq_ = k.leak_scans.back().seq - 1;
    }
    if (!k.rss_samples.empty() && k.rss_samples.back().seq > last_seq_ + 1) {
      last_seq_ = k.rss_samples.back().seq - 1;
    }
  }
  events_ += n;
  blocks_made_ = made_after;
  open_scan_ = open_scan;
  last_rss_ = last_rss;
  last_stack_id_ = max_stack;
  ++next_index_;
  if (c.end()) {
    seen_end_ = true;
    detail::DeliverEnd(*c.end(), visitor);
  }
  return true;
}

bool ChunkDecoder::Skim(const uint8_t* data, size_t size, TraceVisitor& visitor,
                        std::string* error) {
  const ColumnLayout layout = detail::LayoutOf(version_);
  if (layout == ColumnLayout::kFixed) return Decode(data, size, visitor, error);
  if (seen_end_) {
    *error = "data after the end chunk";
    return false;
  }
  const fb::Chunk* chunk = Verify(data, size, next_index_, error);
  if (chunk == nullptr) return false;
  const fb::Chunk& c = *chunk;
  Columns& k = *columns_;
  if (c.process()) k.sample_rate = c.process()->sample_rate();
  k.n = 0;
  k.rss_samples.clear();
  if (!detail::LoadStackColumns(c, &k, error)) return false;
  OpenLeakScan open_scan = open_scan_;
  if (!detail::CheckStacks(c, k, last_stack_id_, error) ||
      !detail::LoadLeakScans(c, 0, &open_scan, &k, error) || !detail::LoadSymbols(c, &k, error)) {
    return false;
  }
  if (c.process()) detail::DeliverProcess(*c.process(), visitor);
  detail::DeliverTables(c, visitor);
  detail::DeliverStacksAndSymbols(c, k, visitor);
  detail::DeliverEvents(c, k, 0, &pieces_, visitor);  // markers and scans only
  events_ += Len(c.api());
  open_scan_ = open_scan;
  last_stack_id_ += static_cast<uint32_t>(k.stack_parent.size());
  ++next_index_;
  if (c.end()) {
    seen_end_ = true;
    detail::DeliverEnd(*c.end(), visitor);
  }
  return true;
}

bool ChunkDecoder::State(DecoderState* s) const {
  if (detail::LayoutOf(version_) == ColumnLayout::kFixed || open_scan_.open) return false;
  s->next_index = next_index_;
  s->blocks_made = blocks_made_;
  s->last_seq = last_seq_;
  s->last_event_seq = last_event_seq_;
  s->last_stack_id = last_stack_id_;
  s->events = events_;
  s->sample_rate = columns_->sample_rate;
  s->size_by_stack.assign(
      size_by_stack_.begin(),
      size_by_stack_.begin() + std::min<size_t>(size_by_stack_.size(), last_stack_id_ + size_t{1}));
  s->last_rss = last_rss_;
  s->threads.clear();
  thread_blocks_.ForEachThread(
      [&](uint32_t t, uint64_t count, const std::vector<uint64_t>& recent) {
        s->threads.push_back({t, count, recent});
      });
  return true;
}

void ChunkDecoder::Resume(const DecoderState& s) {
  next_index_ = s.next_index;
  blocks_made_ = s.blocks_made;
  last_seq_ = s.last_seq;
  last_event_seq_ = s.last_event_seq;
  last_stack_id_ = s.last_stack_id;
  events_ = s.events;
  columns_->sample_rate = s.sample_rate;
  size_by_stack_ = s.size_by_stack;
  last_rss_ = s.last_rss;
  open_scan_ = OpenLeakScan{};
  thread_blocks_ = ThreadBlocks();
  for (const DecoderState::Thread& t : s.threads)
    thread_blocks_.Restore(t.thread, t.count, t.recent);
}

}  // namespace heaprec::format
