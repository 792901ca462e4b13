// Serialization of one chunk into the FlatBuffer of format/trace.fbs.
#include "format/chunk_builder.h"

#include <flatbuffers/flatbuffers.h>

#include <limits>

#include "format/trace_generated.h"
#include "format/zigzag.h"

namespace heaprec::format {

namespace fb = ::heaprec::format::fb;

ChunkBuilder::ChunkBuilder(uint32_t index, uint64_t prev_seq, uint64_t prev_time_ns,
                           uint64_t prev_address, uint32_t prev_stack_id, uint32_t time_unit_ns,
                           bool address_delta_by_kind)
    : index_(index),
      base_seq_(prev_seq),
      base_time_(time_unit_ns > 1 ? prev_time_ns / time_unit_ns * time_unit_ns : prev_time_ns),
      base_address_(prev_address),
      base_stack_id_(prev_stack_id),
      time_unit_(time_unit_ns > 1 ? time_unit_ns : 1),
      by_kind_(address_delta_by_kind),
      kind_address_{prev_address, prev_address, prev_address, prev_address},
      last_seq_(prev_seq),
      last_time_(base_time_),
      last_address_(prev_address),
      last_stack_id_(prev_stack_id) {}

bool ChunkBuilder::empty() const {
  return api_.empty() && stack_parent_.empty() && !process_ && modules_.empty() &&
         unloads_.empty() && threads_.empty() && markers_.empty() && symbols_.empty() && !end_;
}

bool ChunkBuilder::CanAdd(const Event& e) const {
  return api_.empty() || e.seq - last_seq_ <= std::numeric_limits<uint32_t>::max();
}

void ChunkBuilder::AddEvent(const Event& e) {
  if (api_.empty() && e.seq - base_seq_ > std::numeric_limits<uint32_t>::max()) {
    base_seq_ = last_seq_ = e.seq - 1;  // a gap: this chunk starts afresh
  }
  api_.push_back(static_cast<uint8_t>(e.api));
  seq_delta_.push_back(static_cast<uint32_t>(e.seq - last_seq_));
  const uint64_t time = e.time_ns / time_unit_ * time_unit_;
  time_delta_.push_back(ZigzagDelta(last_time_ / time_unit_, time / time_unit_));
  thread_.push_back(e.thread);
  if (by_kind_) {
    const uint32_t ref = refs_.RefFor(e);
    address_ref_.push_back(static_cast<uint8_t>(ref));
    if (ref != 0) {
      address_delta_.push_back(0);
    } else {
      uint64_t& base = kind_address_[static_cast<uint8_t>(e.kind()) & 3];
      address_delta_.push_back(ZigzagDelta(base, e.address));
      base = e.address;
    }
    refs_.NoteEvent(e);
  } else {
    address_delta_.push_back(ZigzagDelta(last_address_, e.address));
  }
  size_.push_back(e.size);
  stack_.push_back(e.stack);
  if (HasAlignment(e.api)) alignment_.push_back(e.alignment);
  if (HasOldAddress(e.api)) old_address_.push_back(e.old_address);
  last_seq_ = e.seq;
  last_time_ = time;
  last_address_ = e.address;
  approx_bytes_ += 45;
}

void ChunkBuilder::AddStackNode(const StackNode& n) {
  stack_parent_.push_back(n.parent);
  stack_address_.push_back(n.address);
  last_stack_id_ = n.id;
  approx_bytes_ += 12;
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
  markers_.push_back(m);
  approx_bytes_ += 40 + m.label.size();
  tables_ += 1;
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
                           p.parent_trace_seq);
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

flatbuffers::Offset<fb::Symbol> BuildSymbol(flatbuffers::FlatBufferBuilder& b, const Symbol& s) {
  std::vector<flatbuffers::Offset<fb::Frame>> frames;
  frames.reserve(s.frames.size());
  for (const SourceFrame& f : s.frames) {
    frames.push_back(
        fb::CreateFrame(b, b.CreateString(f.function), b.CreateString(f.file), f.line, f.column));
  }
  return fb::CreateSymbol(b, s.address, s.module, b.CreateVector(frames));
}

flatbuffers::Offset<fb::End> BuildEnd(flatbuffers::FlatBufferBuilder& b, const EndRecord& e) {
  std::vector<flatbuffers::Offset<fb::Counter>> counters;
  for (const auto& [name, value] : e.counters) {
    counters.push_back(fb::CreateCounter(b, b.CreateString(name), value));
  }
  return fb::CreateEnd(b, e.events, e.allocations, e.frees, e.reallocs, e.bytes_allocated,
                       e.stack_nodes, e.chunks, e.end_time_ns, e.exit_status,
                       b.CreateVector(counters));
}

}  // namespace

void ChunkBuilder::ClearRecords() {
  api_.clear();
  seq_delta_.clear();
  time_delta_.clear();
  thread_.clear();
  address_delta_.clear();
  address_ref_.clear();
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
  for (uint64_t& a : kind_address_) a = last_address_;
  refs_ = AddressRefs();
  base_stack_id_ = last_stack_id_;
}

std::vector<uint8_t> ChunkBuilder::Finish() const {
  flatbuffers::FlatBufferBuilder b(approx_bytes_ + 1024);
  Finish(b);
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

void ChunkBuilder::Finish(flatbuffers::FlatBufferBuilder& b) const {
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
  std::vector<flatbuffers::Offset<fb::Symbol>> symbols;
  for (const Symbol& s : symbols_) symbols.push_back(BuildSymbol(b, s));
  flatbuffers::Offset<fb::End> end;
  if (end_) end = BuildEnd(b, *end_);

  // Columns are always present (possibly empty) so readers can check lengths.
  const auto api = b.CreateVector(api_);
  const auto seq_delta = b.CreateVector(seq_delta_);
  const auto time_delta = b.CreateVector(time_delta_);
  const auto thread = b.CreateVector(thread_);
  const auto address_delta = b.CreateVector(address_delta_);
  const auto address_ref = b.CreateVector(address_ref_);
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
  const auto symbols_v = b.CreateVector(symbols);
  fb::ChunkBuilder chunk(b);
  chunk.add_index(index_);
  chunk.add_base_seq(base_seq_);
  chunk.add_base_time_ns(base_time_);
  chunk.add_base_address(base_address_);
  chunk.add_api(api);
  chunk.add_seq_delta(seq_delta);
  chunk.add_time_delta(time_delta);
  chunk.add_thread(thread);
  chunk.add_address_delta(address_delta);
  chunk.add_size(size);
  chunk.add_stack(stack);
  chunk.add_alignment(alignment);
  chunk.add_old_address(old_address);
  chunk.add_base_stack_id(base_stack_id_);
  chunk.add_time_unit_ns(time_unit_);
  chunk.add_address_delta_base(by_kind_ ? 1 : 0);
  if (by_kind_) chunk.add_address_ref(address_ref);
  chunk.add_stack_parent(stack_parent);
  chunk.add_stack_address(stack_address);
  if (process_) chunk.add_process(process);
  chunk.add_modules(modules_v);
  chunk.add_module_unloads(unloads_v);
  chunk.add_threads(threads_v);
  chunk.add_markers(markers_v);
  chunk.add_symbols(symbols_v);
  if (end_) chunk.add_end(end);
  fb::FinishChunkBuffer(b, chunk.Finish());
}

}  // namespace heaprec::format
