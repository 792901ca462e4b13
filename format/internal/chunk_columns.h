// What ChunkDecoder's stages share (format/chunk_decoder.cc runs them:
// verify -> load -> check -> deliver): the column layout of the trace's
// format version, and one chunk's event and stack columns as plain numbers.
//
// Internal to ChunkDecoder (//format:chunk_decoder_internal). Not
// thread-safe; Columns allocates (its vectors are reused from chunk to
// chunk); for tools, never the traced process.
#ifndef HEAPREC_FORMAT_INTERNAL_CHUNK_COLUMNS_H_
#define HEAPREC_FORMAT_INTERNAL_CHUNK_COLUMNS_H_

#include <flatbuffers/flatbuffers.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "format/api.h"
#include "format/block_ref.h"
#include "format/format_version.h"
#include "format/records.h"
#include "format/trace_generated.h"

namespace heaprec::format::detail {

// How a chunk stores its events, by format version (format/FORMAT.md).
enum class ColumnLayout : uint8_t {
  // Format 1: fixed-width columns in seq order, addresses only; blocks are
  // numbered from the addresses (format/internal/fixed_columns.h).
  kFixed,
  // Format 2: varint columns grouped by thread, the seq order from zigzag seq
  // deltas; frees name blocks by block refs (format/internal/varint_columns.h).
  kVarint,
  // Format 3: as format 2, with the seq order given as runs of one thread's
  // events (seq_run_v) and seq deltas that count the seqs skipped.
  kVarintRuns,
  // Format 4: as format 3, with threads per column group, seq skips and time
  // changes only where they occur, and stacks of frees only if any has one.
  kVarintSparse,
};

constexpr ColumnLayout LayoutOf(FormatVersion v) {
  return v.major >= 4   ? ColumnLayout::kVarintSparse
         : v.major >= 3 ? ColumnLayout::kVarintRuns
         : v.major >= 2 ? ColumnLayout::kVarint
                        : ColumnLayout::kFixed;
}

// Whether the seq order is given as runs (seq_run_v) and seq deltas count
// the seqs skipped: formats 3 and 4.
constexpr bool HasSeqRuns(ColumnLayout layout) {
  return layout == ColumnLayout::kVarintRuns || layout == ColumnLayout::kVarintSparse;
}

// The Api of an api byte: formats 2 to 4 keep kApiNoBlockFlag in bit 7.
constexpr Api ApiOf(uint8_t b, ColumnLayout layout) {
  return static_cast<Api>(layout == ColumnLayout::kFixed ? b : b & kApiMask);
}

// Length of an optional FlatBuffers vector (absent: 0).
template <typename T>
size_t Len(const flatbuffers::Vector<T>* v) {
  return v ? v->size() : 0;
}

// Event times are stored in units of this many ns.
inline uint64_t TimeUnitNs(const fb::Chunk& c) {
  return c.time_unit_ns() == 0 ? 1 : c.time_unit_ns();
}

// The event and stack columns of one chunk as plain numbers, however the
// chunk stores them (format 1: fixed-width vectors; formats 2 and 3:
// varints), per event in column order. Reused from chunk to chunk: vectors
// are sized, not cleared, and an entry an event does not have (a ref of an
// allocation, the alignment of an unaligned call) may hold anything, since
// nothing reads it.
struct Columns {
  size_t n = 0;              // events
  uint64_t sample_rate = 0;  // the trace's (ProcessInfo::sample_rate), for Event::weight
  // Both layouts: thread, stack id and size (formats 2 and 3: absolute,
  // resolved from the per-stack deltas; stack ids above the chunk's known
  // ones keep the raw value, and the chunk fails its checks).
  std::vector<uint32_t> thread, stack;
  std::vector<uint64_t> size;
  // Format 1: the fixed-width deltas.
  std::vector<uint64_t> seq_delta, time_delta, address_delta;
  // Stack nodes: parent ids and absolute addresses.
  std::vector<uint64_t> stack_parent, stack_address;
  // Formats 2 to 4 (LoadVarintColumns): seq (format 2: absolute; formats 3
  // and 4: the seqs skipped, made absolute by OrderByRuns), time units; for frees
  // and reallocs the block ref d (k or i for refs of form kCallerThread or
  // kOtherThread, looked up by ResolveEvents), its form and maker (kOtherThread),
  // and the address passed for d = 0; for aligned calls the alignment; and
  // the addresses if the trace keeps them (old_address: reallocs).
  std::vector<uint64_t> seq, units, d, passed, alignment, address, old_address;
  std::vector<BlockRefForm> form;
  std::vector<uint32_t> maker;
  bool kept = false;  // the trace keeps addresses
  // Formats 2 to 4: the first and last seq in seq order.
  uint64_t first_seq = 0, last_seq = 0;
  // Formats 3 and 4 with their columns in seq order (no seq runs): resolved as
  // decoded (none of the per-event columns above are filled), written in
  // `pieces` pieces as delivered; the blocks made after the chunk, and the
  // first ref that named no block (empty if none), for ResolveEvents.
  bool direct = false;
  size_t pieces = 0;
  uint64_t made_after = 0;
  std::string resolve_error;
  // Formats 2 to 4: where each thread's group of events starts in the
  // columns, and what the chunk's checks (CheckVarintEvents) look at: the
  // first event with an invalid api or an unknown stack (n if none) and the
  // stack id it names, the events that take an alignment, and those that
  // take an old address.
  std::vector<uint32_t> groups;
  size_t first_bad = 0, aligned = 0, reallocs = 0;
  uint64_t bad_stack = 0;
  // The events' indexes in seq order.
  std::vector<uint32_t> order;
  std::vector<uint32_t> merge_buffer;  // scratch for sorting order
  std::vector<uint64_t> seq_run;       // formats 3 and 4: (group, count) pairs
  // The chunk's leak scans (3.1), decoded by LoadLeakScans, in seq order.
  std::vector<LeakScan> leak_scans;
  // The chunk's RSS samples (3.4), decoded by LoadRssSamples, in seq order.
  std::vector<RssSample> rss_samples;
  // The chunk's symbols written as columns (3.5), decoded by LoadSymbols.
  std::vector<Symbol> symbols;
};

}  // namespace heaprec::format::detail

#endif  // HEAPREC_FORMAT_INTERNAL_CHUNK_COLUMNS_H_
