// Collects the records of one chunk in columnar form and serializes them as
// one FlatBuffer (format/trace.fbs). Knows the column encodings (deltas,
// zigzag, sparse columns); knows nothing of files or compression.
//
// Not thread-safe; allocates. Used by TraceWriter and by tests that need to
// craft chunks directly.
#ifndef HEAPREC_FORMAT_CHUNK_BUILDER_H_
#define HEAPREC_FORMAT_CHUNK_BUILDER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "base/large_buffers.h"
#include "format/block_numbers.h"
#include "format/block_ref.h"
#include "format/records.h"
#include "format/thread_blocks.h"

namespace flatbuffers {
class FlatBufferBuilder;
}

namespace heaprec::format {

class ChunkBuilder {
 public:
  // Builds chunk 0 of a format 4 trace; StartNext() moves on to the next.
  // time_unit_ns: resolution of event times; they are rounded down to it.
  // keep_addresses: also store every event's addresses (else only those of
  // frees and reallocs of blocks the trace never saw made).
  // blocks_given: events carry block and old_block (else they are numbered
  // from the addresses).
  explicit ChunkBuilder(uint32_t time_unit_ns = 1, bool keep_addresses = true,
                        bool blocks_given = false);

  // Events must come in increasing seq order (any gaps). Unless
  // blocks_given, their block fields are ignored: blocks are numbered from
  // the addresses.
  void AddEvent(const Event& e);
  // A free names its block by its maker (forms 1 and 2) only while the block
  // is among the last kRecentBlocks made (and its maker's last
  // ThreadBlocks::kWindow); older blocks by d.
  static constexpr uint64_t kRecentBlocks = uint64_t{1} << 18;
  // A hint: an event at address (or freeing, or reallocating from it) comes
  // soon. Changes nothing written; lets the block table's line arrive first.
  void Prefetch(uint64_t address) const {
    if (!blocks_given_) blocks_.Prefetch(address);
  }
  // Whether Prefetch is worth calling (BlockNumbers::PrefetchPays).
  bool PrefetchPays() const { return !blocks_given_ && blocks_.PrefetchPays(); }
  // Stack nodes must come with ids prev_stack_id + 1, + 2, ...
  void AddStackNode(const StackNode& n);
  void SetProcess(const ProcessInfo& p) {
    process_ = p;
    blocks_.set_sample_rate(p.sample_rate);
  }
  void AddModule(const Module& m);
  void AddModuleUnload(const ModuleUnload& u) { unloads_.push_back(u); }
  void AddThread(const ThreadInfo& t);
  // Markers must come in increasing seq order.
  void AddMarker(const Marker& m);
  void AddSymbol(const Symbol& s);
  // Scans must come in increasing seq order (leak_scan_columns.h).
  void AddLeakScan(const LeakScan& s);
  // RSS samples (3.4) must come in non-decreasing seq and time order, each
  // after the events with a smaller seq (TraceWriter's caller orders them).
  void AddRssSample(const RssSample& s) {
    rss_samples_.push_back(s);
    approx_bytes_ += kRssSampleBytesApprox;
  }
  void SetEnd(const EndRecord& e) { end_ = e; }

  size_t event_count() const { return pending_.size() + api_.size(); }
  // Bytes the FlatBuffer will take, roughly; for deciding when to flush.
  // AddEvent adds at most kMaxEventBytes.
  size_t approx_bytes() const { return approx_bytes_; }
  static constexpr size_t kMaxEventBytes = 20;
  // Tables (modules, threads, symbols, frames...) the FlatBuffer will hold;
  // the reader's verifier limits these per chunk.
  size_t table_count() const { return tables_; }
  bool empty() const;

  uint64_t last_seq() const { return last_seq_; }
  uint64_t last_time_ns() const { return last_time_; }
  uint32_t last_stack_id() const { return last_stack_id_; }
  // The live blocks as numbered from the addresses (empty with blocks_given).
  const BlockNumbers& blocks() const { return blocks_; }

  // Serializes everything added so far into b (which is cleared first); the
  // chunk is b.GetBufferPointer()[0 .. b.GetSize()).
  void Finish(flatbuffers::FlatBufferBuilder& b);
  // Serializes into a fresh buffer (for tests).
  std::vector<uint8_t> Finish();
  // Empties the chunk and starts the next one where this one ended, keeping
  // the columns' capacity.
  void StartNext(uint32_t index);

 private:
  void ClearRecords();
  void Encode();        // pending_ -> the event columns, grouped by thread
  void SortByThread();  // order_: Encode's order of a chunk of several threads

  uint32_t index_ = 0;
  uint64_t base_seq_ = 0, base_time_ = 0, base_address_ = 0, base_block_ = 0;
  uint32_t base_stack_id_ = 0;
  uint32_t time_unit_;
  bool keep_addresses_;
  bool blocks_given_;
  BlockNumbers blocks_;  // spans chunks
  uint64_t made_ = 0;    // blocks made so far
  uint64_t last_seq_ = 0, last_time_ = 0, last_address_ = 0;
  uint64_t last_raw_time_ = 0, last_raw_units_ = 0;  // the last event's time, and in units
  uint32_t last_stack_id_ = 0;

  // An event as added, with what seq order decided (block ref form and
  // value, no-block flag); encoded at Finish.
  struct Pending {
    uint8_t api = 0;                               // with kApiNoBlockFlag
    BlockRefForm form = BlockRefForm::kAnyThread;  // d is then d, k or i
    uint32_t thread = 0;
    uint32_t stack = 0;
    uint32_t maker = 0;  // kOtherThread: the thread that made the block
    uint64_t seq = 0, units = 0, size = 0, d = 0, passed = 0;
    uint64_t alignment = 0;
  };
  static_assert(sizeof(Pending) == 64);  // a line an event: Encode streams them
  struct Addresses {                     // an event's, when the chunk keeps them
    uint64_t address = 0, old_address = 0;
  };
  // A block's maker: which thread, as its how-many-th block (the low 32
  // bits: a block named by its maker is less than kRecentBlocks blocks old,
  // so its maker's count has moved on by less than that).
  struct Made {
    uint32_t idx = 0;
    uint32_t thread = 0;
  };
  // As BlockNumbers keeps it with the block (its tag).
  static uint64_t MakerTag(Made m) { return uint64_t{m.thread} << 32 | m.idx; }
  static Made MakerOf(uint64_t tag) {
    return {static_cast<uint32_t>(tag), static_cast<uint32_t>(tag >> 32)};
  }
  void Ref(uint64_t released, uint64_t made_before, uint32_t thread, bool recent, Made m,
           Pending* p) const;
  // With blocks given (no addresses to keep makers with): the makers of the
  // last kRecentBlocks blocks made, block b at b % kRecentBlocks; no block
  // number is kept, as the entry there is b's whenever made_ - b <
  // kRecentBlocks (a later block with the same slot would be at least b +
  // kRecentBlocks). 8 bytes: the table stays 2 MiB.
  std::vector<Made, base::LargeBufferAllocator<Made>> recent_;
  ThreadBlocks thread_blocks_{/*keep_blocks=*/false};                  // counts; spans chunks
  std::vector<Pending, base::LargeBufferAllocator<Pending>> pending_;  // 4 MiB per chunk
  std::vector<Addresses> pending_addresses_;  // by pending_ index, if keep_addresses_
  // pending_[i].thread again, 4 bytes an event: Encode's sort by thread
  // reads these instead of a line of pending_ each. Empty while the chunk
  // holds one thread's events.
  std::vector<uint32_t> pending_thread_;
  std::vector<uint32_t> order_;
  std::vector<uint32_t> thread_start_;  // counting sort by thread
  std::unique_ptr<uint8_t[]> scratch_;  // Encode's varint columns before they are appended
  size_t scratch_size_ = 0;
  bool one_thread_ = true;
  uint32_t max_thread_ = 0;  // of the pending events (while one_thread_, their thread)
  // Event and stack columns as varint bytes (format 4; trace.fbs, *_v).
  std::vector<uint8_t> api_;
  std::vector<uint8_t> seq_skip_;     // sparse: (index gap, seqs skipped)
  std::vector<uint8_t> time_change_;  // sparse: (index gap, zigzag time delta)
  std::vector<uint8_t> group_;        // per column group: thread, events
  std::vector<uint8_t> address_delta_;
  std::vector<uint8_t> size_;
  std::vector<uint8_t> stack_;       // events other than frees
  std::vector<uint8_t> free_stack_;  // frees, when any has a stack
  std::vector<uint64_t> alignment_;
  std::vector<uint64_t> old_address_;
  std::vector<uint8_t> block_ref_;
  std::vector<uint8_t> ref_form_;
  std::vector<uint8_t> ref_thread_;
  std::vector<uint8_t> seq_run_;
  std::vector<uint32_t> rank_;  // per pending event: its thread's group in the columns
  std::vector<uint64_t> raw_address_;
  std::vector<uint8_t> stack_parent_;
  std::vector<uint8_t> stack_address_;
  std::vector<uint64_t> size_by_stack_;  // the last size per stack id; spans chunks
  uint64_t last_node_address_ = 0;

  std::optional<ProcessInfo> process_;
  std::vector<Module> modules_;
  std::vector<ModuleUnload> unloads_;
  std::vector<ThreadInfo> threads_;
  std::vector<Marker> markers_;
  std::vector<Symbol> symbols_;
  std::vector<LeakScan> leak_scans_;
  std::vector<RssSample> rss_samples_;
  static constexpr size_t kRssSampleBytesApprox = 12;
  std::optional<EndRecord> end_;

  size_t approx_bytes_ = 256;
  size_t tables_ = 1;
};

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_CHUNK_BUILDER_H_
