// Serialization of one chunk into the FlatBuffer of format/trace.fbs.
#include "format/chunk_builder.h"

#include <flatbuffers/flatbuffers.h>

#include <algorithm>

#include "format/leak_scan_columns.h"
#include "format/rss_columns.h"
#include "format/switch_markers.h"
#include "format/symbol_columns.h"
#include "format/trace_generated.h"
#include "format/varint.h"
#include "format/zigzag.h"

namespace heaprec::format {

namespace fb = ::heaprec::format::fb;

ChunkBuilder::ChunkBuilder(uint32_t time_unit_ns, bool keep_addresses, bool blocks_given)
    : time_unit_(time_unit_ns > 1 ? time_unit_ns : 1),
      keep_addresses_(keep_addresses),
      blocks_given_(blocks_given) {}

bool ChunkBuilder::empty() const {
  return pending_.empty() && api_.empty() && stack_parent_.empty() && !process_ &&
         modules_.empty() && unloads_.empty() && threads_.empty() && markers_.empty() &&
         symbols_.empty() && leak_scans_.empty() && rss_samples_.empty() && !end_;
}

// How a free or realloc names the block it released (FORMAT.md, "Blocks"):
// by its maker's count while the block is among the maker's last
// ThreadBlocks::kWindow (kCallerThread when the maker is the caller, else
// kOtherThread), else by d (kAnyThread; d = 0 for a block the trace never saw
// made). Only a block among the last kRecentBlocks made (recent) is named by
// its maker, m.
inline void ChunkBuilder::Ref(uint64_t released, uint64_t made_before, uint32_t thread, bool recent,
                              Made m, Pending* p) const {
  p->form = BlockRefForm::kAnyThread;
  p->d = released == 0 ? 0 : made_before - released + 1;
  if (!recent) return;
  const uint64_t count = thread_blocks_.count(m.thread);
  const uint32_t back = static_cast<uint32_t>(count) - m.idx;  // blocks m.thread made since
  if (back >= ThreadBlocks::kWindow) return;
  if (m.thread == thread) {
    p->form = BlockRefForm::kCallerThread;
    p->d = back + 1;  // k: the caller's k-th most recent block
  } else {
    p->form = BlockRefForm::kOtherThread;
    p->d = count - back;  // i: the maker's i-th block
    p->maker = m.thread;
  }
}

void ChunkBuilder::AddEvent(const Event& e) {
  // Blocks are numbered, and d taken, in seq order; the columns are written
  // in thread order at Finish (see Encode). Pending is filled in place, field
  // by field (copies of whole Events stalled on store forwarding).
  const uint64_t made_before = made_;
  uint64_t block = e.block, old_block = e.old_block;
  const EventKind kind = e.kind();
  // The maker of the block a free or realloc names: numbered from the
  // addresses, kept with the block (its live entry, the line the lookup
  // loads anyway); given, looked up in recent_.
  Made maker;
  if (!blocks_given_) {
    // Should e make a block: e.thread's, its count + 1.
    const uint64_t mine =
        kind == EventKind::kFree
            ? 0
            : MakerTag({static_cast<uint32_t>(thread_blocks_.count(e.thread) + 1), e.thread});
    uint64_t named = 0;
    blocks_.Assign(e, mine, &block, &old_block, &named);
    maker = MakerOf(named);
  }
  // Bit 7: an alloc or realloc that returned no block.
  const bool no_block = kind != EventKind::kFree && block == 0;
  if (kind != EventKind::kFree && !no_block) ++made_;
  // Times change rarely at a coarse unit: divide only when the time moved.
  if (e.time_ns != last_raw_time_) {
    last_raw_time_ = e.time_ns;
    last_raw_units_ = e.time_ns / time_unit_;
    last_time_ = last_raw_units_ * time_unit_;
  }
  // pending_thread_ is kept from the chunk's second thread on (a chunk of
  // one thread's events, every chunk of a one-thread program, needs no sort).
  if (pending_.empty()) {
    one_thread_ = true;
    max_thread_ = e.thread;
  } else if (!one_thread_) {
    max_thread_ = std::max(max_thread_, e.thread);
    pending_thread_.push_back(e.thread);
  } else if (e.thread != max_thread_) {
    one_thread_ = false;
    pending_thread_.assign(pending_.size(), max_thread_);
    max_thread_ = std::max(max_thread_, e.thread);
    pending_thread_.push_back(e.thread);
  }
  Pending& p = pending_.emplace_back();
  p.api = static_cast<uint8_t>(static_cast<uint8_t>(e.api) | (no_block ? kApiNoBlockFlag : 0));
  p.seq = e.seq;
  p.units = last_raw_units_;
  p.thread = e.thread;
  p.stack = e.stack;
  p.size = e.size;
  if (kind == EventKind::kFree || kind == EventKind::kRealloc) {
    const uint64_t released = kind == EventKind::kFree ? block : old_block;
    const bool recent = released != 0 && made_before - released < kRecentBlocks;
    if (blocks_given_ && recent && !recent_.empty()) {
      maker = recent_[released & (kRecentBlocks - 1)];
    }
    Ref(released, made_before, e.thread, recent && (!blocks_given_ || !recent_.empty()), maker, &p);
    p.passed = kind == EventKind::kFree ? e.address : e.old_address;
  }
  if (made_ != made_before) {
    thread_blocks_.Made(e.thread, made_);
    if (blocks_given_) {
      if (recent_.empty()) recent_.resize(kRecentBlocks);
      recent_[made_ & (kRecentBlocks - 1)] = {static_cast<uint32_t>(thread_blocks_.count(e.thread)),
                                              e.thread};
    }
  }
  if (keep_addresses_) pending_addresses_.push_back({e.address, e.old_address});
  p.alignment = e.alignment;
  last_seq_ = e.seq;
  // Most columns take a byte or two per event; a close enough guess (at
  // most kMaxEventBytes).
  approx_bytes_ += (keep_addresses_ ? 12 : 9) + (HasAlignment(e.api) ? 8 : 0);
}

// order_ = the pending events' indexes, stably sorted by thread.
void ChunkBuilder::SortByThread() {
  const size_t n = pending_.size();
  order_.resize(n);
  const uint32_t max_thread = max_thread_;
  if (max_thread > (1u << 20)) {
    // Not the heaprec launcher's dense indexes: a plain stable sort.
    for (size_t i = 0; i < n; ++i) order_[i] = static_cast<uint32_t>(i);
    std::stable_sort(order_.begin(), order_.end(), [this](uint32_t a, uint32_t b) {
      return pending_thread_[a] < pending_thread_[b];
    });
    return;
  }
  // A counting sort by thread index (stable, linear): thread indexes are
  // dense small numbers.
  thread_start_.assign(static_cast<size_t>(max_thread) + 2, 0);
  for (const uint32_t t : pending_thread_) ++thread_start_[static_cast<size_t>(t) + 1];
  for (size_t t = 1; t < thread_start_.size(); ++t) thread_start_[t] += thread_start_[t - 1];
  for (size_t i = 0; i < n; ++i)
    order_[thread_start_[pending_thread_[i]]++] = static_cast<uint32_t>(i);
}

// Writes the pending events' columns grouped by thread (each thread's events
// in seq order, threads in the order of their index): a thread's own
// patterns (sizes, frees, times) stay together, where the seq order of
// several threads would interleave them. Readers put the events back in seq
// order.
void ChunkBuilder::Encode() {
  if (pending_.empty()) return;
  // The varint columns are written through raw cursors into scratch space
  // sized for the worst case (10 bytes a value, 20 a sparse pair), then
  // appended to the columns: byte stores through a vector reload its end
  // pointer each time.
  const size_t n = pending_.size();
  constexpr size_t kScratchPerEvent = 20 + 20 + 10 + 10 + 10 + 10 + 10 + 1;
  if (scratch_size_ < n * kScratchPerEvent) {
    scratch_size_ = n * kScratchPerEvent;
    scratch_.reset(new uint8_t[scratch_size_]);  // not zeroed: only what is written is read
  }
  uint8_t* const base = scratch_.get();
  uint8_t* const skip_at = base;                 // seq skips: pairs
  uint8_t* const change_at = base + n * 20;      // time changes: pairs
  uint8_t* const free_stack_at = base + n * 40;  // stacks of frees
  uint8_t* const ref_at = base + n * 50;
  uint8_t* const address_at = base + n * 60;
  uint8_t* const size_at = base + n * 70;
  uint8_t* const stack_at = base + n * 80;
  uint8_t* const form_at = base + n * 90;
  uint8_t *skip_p = skip_at, *change_p = change_at, *free_stack_p = free_stack_at;
  uint8_t *ref_p = ref_at, *address_p = address_at, *size_p = size_at, *stack_p = stack_at;
  uint8_t* form_p = form_at;
  bool free_stacks = false;  // some free has a stack: free_stack_v is written
  const size_t api_at = api_.size();
  api_.resize(api_at + n);
  uint8_t* api_p = api_.data() + api_at;
  uint64_t prev_units = base_time_ / time_unit_, prev_d = 0;
  uint64_t prev_k = 0, prev_i = 0;  // kCallerThread, kOtherThread: from 0 where the thread changes
  uint64_t prev_address = base_address_;
  // The column index of the next event, and the index after the last
  // listed seq skip and time change (sparse pairs count the gap from there).
  uint64_t col = 0, skip_from = 0, change_from = 0;
  // The columns of pending_[i], the next event in column order.
  auto put = [&](uint32_t i) __attribute__((always_inline)) {
    const Pending& p = pending_[i];
    const Api api = static_cast<Api>(p.api & kApiMask);
    const EventKind kind = KindOf(api);
    *api_p++ = p.api;
    // The seqs skipped since the previous event in seq order (pending_ is
    // in seq order), listed only where some were; the order itself goes
    // into seq_run_ below.
    const uint64_t skipped = p.seq - (i == 0 ? base_seq_ : pending_[i - 1].seq) - 1;
    if (skipped != 0) {
      skip_p = WriteVarint(skip_p, col - skip_from);
      skip_p = WriteVarint(skip_p, skipped);
      skip_from = col + 1;
    }
    // Times change rarely at a coarse unit: listed where they do.
    if (p.units != prev_units) {
      change_p = WriteVarint(change_p, col - change_from);
      change_p = WriteVarint(change_p, ZigzagDelta(prev_units, p.units));
      change_from = col + 1;
      prev_units = p.units;
    }
    if (kind == EventKind::kFree || kind == EventKind::kRealloc) {
      // Stored as a change from the previous value of the same form: it
      // changes little.
      *form_p++ = static_cast<uint8_t>(p.form);
      if (p.form == BlockRefForm::kCallerThread) {
        ref_p = WriteVarint(ref_p, ZigzagDelta(prev_k, p.d));
        prev_k = p.d;
      } else if (p.form == BlockRefForm::kOtherThread) {
        ref_p = WriteVarint(ref_p, ZigzagDelta(prev_i, p.d));
        prev_i = p.d;
        PutVarint(&ref_thread_, ZigzagDelta(p.thread, p.maker));
      } else {
        ref_p = WriteVarint(ref_p, ZigzagDelta(prev_d, p.d));
        prev_d = p.d;
        if (p.d == 0) raw_address_.push_back(p.passed);
      }
    }
    if (keep_addresses_) {
      const Addresses& a = pending_addresses_[i];
      address_p = WriteVarint(address_p, ZigzagDelta(prev_address, a.address));
      if (HasOldAddress(api)) old_address_.push_back(a.old_address);
      prev_address = a.address;
    }
    // Sizes as the change from the stack's previous size: most call sites
    // allocate the same size again and again.
    if (p.stack >= size_by_stack_.size()) size_by_stack_.resize(p.stack + 1 + p.stack / 2, 0);
    size_p = WriteVarint(size_p, ZigzagDelta(size_by_stack_[p.stack], p.size));
    size_by_stack_[p.stack] = p.size;
    if (kind == EventKind::kFree) {
      free_stack_p = WriteVarint(free_stack_p, p.stack);
      free_stacks |= p.stack != 0;
    } else {
      stack_p = WriteVarint(stack_p, p.stack);
    }
    if (HasAlignment(api)) alignment_.push_back(p.alignment);
    ++col;
  };
  if (one_thread_) {
    // The columns are in seq order, no runs: one group.
    for (uint32_t i = 0; i < n; ++i) put(i);
    PutVarint(&group_, pending_.front().thread);
    PutVarint(&group_, n);
  } else {
    SortByThread();
    uint32_t column_thread = 0, rank = 0;
    uint64_t in_group = 0;
    bool first = true;
    rank_.resize(n);
    for (const uint32_t i : order_) {
      const uint32_t thread = pending_thread_[i];
      if (first || thread != column_thread) {
        if (!first) {
          ++rank;
          PutVarint(&group_, column_thread);
          PutVarint(&group_, in_group);
        }
        column_thread = thread;
        in_group = 0;
        first = false;
        prev_k = prev_i = 0;
      }
      ++in_group;
      rank_[i] = rank;
      put(i);
    }
    PutVarint(&group_, column_thread);
    PutVarint(&group_, in_group);
    // The seq order as runs of one thread's events: (rank of its group in
    // the columns, events).
    uint32_t run_rank = rank_[0];
    uint64_t run = 0;
    for (size_t i = 0; i < n; ++i) {
      if (rank_[i] != run_rank) {
        PutVarint(&seq_run_, run_rank);
        PutVarint(&seq_run_, run);
        run_rank = rank_[i];
        run = 0;
      }
      ++run;
    }
    PutVarint(&seq_run_, run_rank);
    PutVarint(&seq_run_, run);
  }
  ref_form_.insert(ref_form_.end(), form_at, form_p);
  seq_skip_.insert(seq_skip_.end(), skip_at, skip_p);
  time_change_.insert(time_change_.end(), change_at, change_p);
  if (free_stacks) free_stack_.insert(free_stack_.end(), free_stack_at, free_stack_p);
  block_ref_.insert(block_ref_.end(), ref_at, ref_p);
  address_delta_.insert(address_delta_.end(), address_at, address_p);
  size_.insert(size_.end(), size_at, size_p);
  stack_.insert(stack_.end(), stack_at, stack_p);
  last_address_ = prev_address;
  pending_.clear();
  pending_addresses_.clear();
  pending_thread_.clear();
}

void ChunkBuilder::AddStackNode(const StackNode& n) {
  const size_t before = stack_parent_.size() + stack_address_.size();
  PutVarint(&stack_parent_, n.id - n.parent);
  PutVarint(&stack_address_, ZigzagDelta(last_node_address_, n.address));
  last_node_address_ = n.address;
  last_stack_id_ = n.id;
  approx_bytes_ += stack_parent_.size() + stack_address_.size() - before;
}

void ChunkBuilder::AddModule(const Module& m) {
  modules_.push_back(m);
  approx_bytes_ += 64 + m.path.size() + m.build_id.size() + 24 * m.ranges.size();
  tables_ += 1;
}

void ChunkBuilder::AddThread(const ThreadInfo& t) {
  threads_.push_back(t);
  approx_bytes_ += 32 + t.name.size();
  tables_ += 1;
}

void ChunkBuilder::AddMarker(const Marker& m) {
  if (!blocks_given_ && IsRecordingSwitch(m.label)) {
    blocks_.RecordingSwitched(m.label == kRecordingStopLabel);
  }
  markers_.push_back(m);
  approx_bytes_ += 40 + m.label.size();
  tables_ += 1;
}

void ChunkBuilder::AddLeakScan(const LeakScan& s) {
  leak_scans_.push_back(s);
  approx_bytes_ += LeakScanBytes(s);
  tables_ += 1 + s.roots.size();
}

void ChunkBuilder::AddSymbol(const Symbol& s) {
  symbols_.push_back(s);
  approx_bytes_ += 32;
  tables_ += 1 + s.frames.size();
  for (const SourceFrame& f : s.frames) {
    approx_bytes_ += 32 + f.function.size() + f.file.size();
  }
}

namespace {

flatbuffers::Offset<fb::Process> BuildProcess(flatbuffers::FlatBufferBuilder& b,
                                              const ProcessInfo& p) {
  std::vector<flatbuffers::Offset<flatbuffers::String>> args;
  args.reserve(p.args.size());
  for (const std::string& a : p.args) args.push_back(b.CreateString(a));
  return fb::CreateProcess(b, b.CreateString(p.program), b.CreateVector(args), p.pid, p.ppid,
                           p.start_realtime_ns, p.start_monotonic_ns, b.CreateString(p.clock),
                           p.page_size, b.CreateString(p.recorder), b.CreateString(p.hostname),
                           p.parent_trace_seq, b.CreateString(p.parent_trace), p.sample_rate,
                           p.from_start);
}

flatbuffers::Offset<fb::Module> BuildModule(flatbuffers::FlatBufferBuilder& b, const Module& m) {
  std::vector<fb::Range> ranges;
  ranges.reserve(m.ranges.size());
  for (const MappedRange& r : m.ranges) {
    ranges.emplace_back(r.start, r.end, r.file_offset);
  }
  const auto* id = reinterpret_cast<const uint8_t*>(m.build_id.data());
  return fb::CreateModule(b, m.id, b.CreateString(m.path), b.CreateVector(id, m.build_id.size()),
                          m.load_address, b.CreateVectorOfStructs(ranges), m.seq);
}

flatbuffers::Offset<fb::End> BuildEnd(flatbuffers::FlatBufferBuilder& b, const EndRecord& e) {
  std::vector<flatbuffers::Offset<fb::Counter>> counters;
  for (const auto& [name, value] : e.counters) {
    counters.push_back(fb::CreateCounter(b, b.CreateString(name), value));
  }
  return fb::CreateEnd(b, e.events, e.allocations, e.frees, e.reallocs, e.bytes_allocated,
                       e.stack_nodes, e.chunks, e.end_time_ns, e.exit_status,
                       b.CreateVector(counters), e.symbols_complete, e.replaced_by_exec);
}

}  // namespace

void ChunkBuilder::ClearRecords() {
  pending_.clear();
  pending_addresses_.clear();
  pending_thread_.clear();
  api_.clear();
  seq_skip_.clear();
  time_change_.clear();
  group_.clear();
  free_stack_.clear();
  address_delta_.clear();
  block_ref_.clear();
  ref_form_.clear();
  seq_run_.clear();
  ref_thread_.clear();
  raw_address_.clear();
  size_.clear();
  stack_.clear();
  alignment_.clear();
  old_address_.clear();
  stack_parent_.clear();
  stack_address_.clear();
  process_.reset();
  modules_.clear();
  unloads_.clear();
  threads_.clear();
  markers_.clear();
  symbols_.clear();
  leak_scans_.clear();
  rss_samples_.clear();
  end_.reset();
  approx_bytes_ = 256;
  tables_ = 1;
}

void ChunkBuilder::StartNext(uint32_t index) {
  ClearRecords();
  index_ = index;
  base_seq_ = last_seq_;
  base_time_ = last_time_;
  base_address_ = last_address_;
  base_block_ = made_;
  last_node_address_ = 0;
  base_stack_id_ = last_stack_id_;
}

std::vector<uint8_t> ChunkBuilder::Finish() {
  flatbuffers::FlatBufferBuilder b(approx_bytes_ + 1024);
  Finish(b);
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

void ChunkBuilder::Finish(flatbuffers::FlatBufferBuilder& b) {
  Encode();
  b.Clear();

  flatbuffers::Offset<fb::Process> process;
  if (process_) process = BuildProcess(b, *process_);

  std::vector<flatbuffers::Offset<fb::Module>> modules;
  for (const Module& m : modules_) modules.push_back(BuildModule(b, m));
  std::vector<flatbuffers::Offset<fb::ModuleUnload>> unloads;
  for (const ModuleUnload& u : unloads_) {
    unloads.push_back(fb::CreateModuleUnload(b, u.id, u.seq));
  }
  std::vector<flatbuffers::Offset<fb::Thread>> threads;
  for (const ThreadInfo& t : threads_) {
    threads.push_back(fb::CreateThread(b, t.thread, t.tid, b.CreateString(t.name), t.seq));
  }
  std::vector<flatbuffers::Offset<fb::Marker>> markers;
  for (const Marker& m : markers_) {
    markers.push_back(fb::CreateMarker(b, m.seq, m.time_ns, m.thread, b.CreateString(m.label)));
  }
  // 3.5: symbols as columns; Chunk.symbols is left out.
  flatbuffers::Offset<fb::SymbolColumns> symbol_columns;
  if (!symbols_.empty()) symbol_columns = EncodeSymbolColumns(b, symbols_);
  std::vector<flatbuffers::Offset<fb::LeakScan>> leak_scans;
  for (const LeakScan& s : leak_scans_) leak_scans.push_back(EncodeLeakScan(b, s));
  flatbuffers::Offset<fb::End> end;
  if (end_) end = BuildEnd(b, *end_);

  // Columns are always present (possibly empty) so readers can check lengths.
  const auto api = b.CreateVector(api_);
  const auto seq_skip = b.CreateVector(seq_skip_);
  const auto time_change = b.CreateVector(time_change_);
  const auto group = b.CreateVector(group_);
  const auto free_stack = b.CreateVector(free_stack_);
  const auto address_delta = b.CreateVector(address_delta_);
  const auto block_ref = b.CreateVector(block_ref_);
  const auto ref_form = b.CreateVector(ref_form_);
  const auto seq_run = b.CreateVector(seq_run_);
  const auto ref_thread = b.CreateVector(ref_thread_);
  const auto raw_address = b.CreateVector(raw_address_);
  const auto size = b.CreateVector(size_);
  const auto stack = b.CreateVector(stack_);
  const auto alignment = b.CreateVector(alignment_);
  const auto old_address = b.CreateVector(old_address_);
  const auto stack_parent = b.CreateVector(stack_parent_);
  const auto stack_address = b.CreateVector(stack_address_);
  const auto modules_v = b.CreateVector(modules);
  const auto unloads_v = b.CreateVector(unloads);
  const auto threads_v = b.CreateVector(threads);
  const auto markers_v = b.CreateVector(markers);
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::LeakScan>>> leak_scans_v;
  if (!leak_scans.empty()) leak_scans_v = b.CreateVector(leak_scans);
  flatbuffers::Offset<fb::RssSamples> rss;
  if (!rss_samples_.empty()) rss = EncodeRssSamples(b, rss_samples_);
  fb::ChunkBuilder chunk(b);
  chunk.add_index(index_);
  chunk.add_base_seq(base_seq_);
  chunk.add_base_time_ns(base_time_);
  chunk.add_base_address(base_address_);
  chunk.add_api(api);
  chunk.add_address_delta_v(address_delta);
  chunk.add_size_v(size);
  chunk.add_stack_v(stack);
  chunk.add_alignment(alignment);
  chunk.add_old_address(old_address);
  chunk.add_base_stack_id(base_stack_id_);
  chunk.add_time_unit_ns(time_unit_);
  chunk.add_base_block(base_block_);
  chunk.add_block_ref(block_ref);
  chunk.add_ref_form(ref_form);
  chunk.add_seq_run_v(seq_run);
  chunk.add_ref_thread_v(ref_thread);
  chunk.add_raw_address(raw_address);
  chunk.add_stack_parent_v(stack_parent);
  chunk.add_stack_address_v(stack_address);
  chunk.add_group_v(group);
  chunk.add_seq_skip_v(seq_skip);
  chunk.add_time_change_v(time_change);
  chunk.add_free_stack_v(free_stack);
  if (process_) chunk.add_process(process);
  chunk.add_modules(modules_v);
  chunk.add_module_unloads(unloads_v);
  chunk.add_threads(threads_v);
  chunk.add_markers(markers_v);
  if (!leak_scans.empty()) chunk.add_leak_scans(leak_scans_v);
  if (!rss_samples_.empty()) chunk.add_rss_samples(rss);
  if (!symbols_.empty()) chunk.add_symbol_columns(symbol_columns);
  if (end_) chunk.add_end(end);
  fb::FinishChunkBuffer(b, chunk.Finish());
}

}  // namespace heaprec::format
