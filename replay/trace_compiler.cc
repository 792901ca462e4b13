// Events to per-thread op arrays (trace_compiler.h).
#include "replay/trace_compiler.h"

#include <algorithm>
#include <bit>
#include <utility>

namespace heaprec::replay {

namespace {

using format::Api;
using format::EventKind;

uint8_t AlignLog2(const format::Event& e) {
  if (!format::HasAlignment(e.api) || e.alignment <= 1) return 0;
  return static_cast<uint8_t>(std::bit_width(std::bit_ceil(e.alignment)) - 1);
}

Op MakeOp(Api api, uint8_t flags, uint32_t slot, uint64_t size, uint8_t align_log2 = 0) {
  Op op;
  op.api = static_cast<uint8_t>(api);
  op.kind = static_cast<uint8_t>(format::KindOf(api));
  op.flags = flags;
  op.slot = slot;
  op.size = size;
  op.align_log2 = align_log2;
  return op;
}

}  // namespace

uint32_t TraceCompiler::ThreadIndex(uint32_t thread) {
  const auto [it, added] =
      thread_index_.emplace(thread, static_cast<uint32_t>(out_.thread_ids.size()));
  if (added) {
    out_.thread_ids.push_back(thread);
    out_.ops.emplace_back();
    out_.waits.emplace_back();
    wait_points_.emplace_back();
    free_slots_.emplace_back();
    pending_.emplace_back();
  }
  return it->second;
}

uint32_t TraceCompiler::NewSlot(uint32_t t) {
  std::vector<uint32_t>& free = free_slots_[t];
  if (!free.empty()) {
    const uint32_t slot = free.back();
    free.pop_back();
    return slot;
  }
  slots_.emplace_back();
  return static_cast<uint32_t>(slots_.size() - 1);
}

int64_t TraceCompiler::LiveSlot(uint64_t block) const {
  if (block == 0 || block >= block_slot_.size() || block_slot_[block] == 0) return -1;
  return static_cast<int64_t>(block_slot_[block]) - 1;
}

// Appends op to thread t. An op that reads its slot's block waits for the
// op that stored it when that op ran on another thread.
void TraceCompiler::Emit(uint32_t t, Op op, bool reads_slot) {
  if (reads_slot) {
    const SlotState& s = slots_[op.slot];
    if (s.writer_thread != t) {
      op.flags |= kWaits;
      out_.waits[t].push_back({s.writer_thread, s.writer_op + 1});
      wait_points_[t].push_back({static_cast<uint32_t>(out_.ops[t].size()),
                                 static_cast<uint32_t>(out_.ops[s.writer_thread].size())});
      ++out_.stats.cross_thread_waits;
    }
  }
  out_.ops[t].push_back(op);
  ++out_.stats.ops;
}

void TraceCompiler::MakeBlock(uint32_t t, uint64_t block, uint32_t slot, uint64_t size) {
  if (block >= block_slot_.size()) block_slot_.resize(block + 1 + block / 2, 0);
  block_slot_[block] = slot + 1;
  slots_[slot] = {size, t, static_cast<uint32_t>(out_.ops[t].size() - 1)};
  live_bytes_ += size;
  if (live_bytes_ > out_.stats.peak_live_bytes) out_.stats.peak_live_bytes = live_bytes_;
}

void TraceCompiler::ReleaseBlock(uint64_t block, uint32_t slot) {
  block_slot_[block] = 0;
  live_bytes_ -= slots_[slot].size;
}

void TraceCompiler::OnAlloc(uint32_t t, const format::Event& e) {
  if (e.block == 0) {
    ++out_.stats.failed_calls;
    return;
  }
  const uint32_t slot = NewSlot(t);
  Emit(t, MakeOp(e.api, 0, slot, e.size, AlignLog2(e)), false);
  MakeBlock(t, e.block, slot, e.size);
}

void TraceCompiler::OnFree(uint32_t t, const format::Event& e) {
  if (e.IsNullFree()) return;
  const int64_t slot = LiveSlot(e.block);
  if (slot < 0) {
    ++out_.stats.unknown_frees;
    return;
  }
  const auto s = static_cast<uint32_t>(slot);
  Emit(t, MakeOp(e.api, 0, s, e.size, AlignLog2(e)), true);
  ReleaseBlock(e.block, s);
  free_slots_[t].push_back(s);
}

void TraceCompiler::OnRealloc(uint32_t t, const format::Event& e) {
  if (e.IsAllocatingRealloc()) {  // realloc(NULL, n)
    if (e.block == 0) {
      ++out_.stats.failed_calls;
      return;
    }
    const uint32_t slot = NewSlot(t);
    Emit(t, MakeOp(e.api, kFromNull, slot, e.size), false);
    MakeBlock(t, e.block, slot, e.size);
    return;
  }
  if (e.IsFailedRealloc()) {  // the old block stays
    ++out_.stats.failed_calls;
    return;
  }
  const int64_t old_slot = LiveSlot(e.old_block);
  if (old_slot < 0) {  // a block made before recording
    ++out_.stats.unknown_frees;
    if (e.IsFreeingRealloc()) return;
    ++out_.stats.unknown_reallocs;
    const uint32_t slot = NewSlot(t);
    Emit(t, MakeOp(e.api, kFromNull | kUnknownOld, slot, e.size), false);
    MakeBlock(t, e.block, slot, e.size);
    return;
  }
  const auto slot = static_cast<uint32_t>(old_slot);
  ReleaseBlock(e.old_block, slot);
  if (e.IsFreeingRealloc()) {  // realloc(p, 0), or the first half of a move
    pending_[t] = {true, static_cast<uint8_t>(e.api), slot, e.stack};
    return;
  }
  Emit(t, MakeOp(e.api, 0, slot, e.size), true);  // in place
  MakeBlock(t, e.block, slot, e.size);
}

void TraceCompiler::FlushPending(uint32_t t) {
  Pending& p = pending_[t];
  if (!p.active) return;
  p.active = false;
  Emit(t, MakeOp(static_cast<Api>(p.api), kToZero, p.slot, 0), true);
  free_slots_[t].push_back(p.slot);
}

void TraceCompiler::FlushPending() {
  for (uint32_t t = 0; t < pending_.size(); ++t) FlushPending(t);
}

void TraceCompiler::OnThread(const format::ThreadInfo& t) {
  if (main_named_ || pid_ == 0 || t.tid != pid_) return;
  main_named_ = true;
  main_format_thread_ = t.thread;
}

void TraceCompiler::OnEvent(const format::Event& e) {
  ++out_.stats.events;
  const uint32_t t = ThreadIndex(e.thread);
  Pending& p = pending_[t];
  if (p.active) {
    const bool second_half =
        e.CouldBeMoveSecondHalf() && static_cast<uint8_t>(e.api) == p.api && e.stack == p.stack;
    if (second_half) {
      p.active = false;
      ++out_.stats.moved_reallocs;
      Emit(t, MakeOp(e.api, kMoved, p.slot, e.size), true);
      MakeBlock(t, e.block, p.slot, e.size);
      SampleCurve();
      return;
    }
    FlushPending(t);
  }
  switch (e.kind()) {
    case EventKind::kAlloc:
      OnAlloc(t, e);
      break;
    case EventKind::kFree:
      OnFree(t, e);
      break;
    case EventKind::kRealloc:
      OnRealloc(t, e);
      break;
    case EventKind::kInvalid:
      break;
  }
  SampleCurve();
}

// Keeps at most 2 x kCurvePoints points: when full, every pair merges into
// its higher point and the stretch per point doubles.
void TraceCompiler::SampleCurve() {
  if (live_bytes_ >= bucket_.bytes) bucket_ = {out_.stats.ops, live_bytes_};
  if (out_.stats.ops < next_sample_) return;
  std::vector<CurvePoint>& curve = out_.live_curve;
  curve.push_back(bucket_);
  bucket_ = {out_.stats.ops, live_bytes_};
  next_sample_ = out_.stats.ops + stride_;
  if (curve.size() < 2 * kCurvePoints) return;
  for (size_t i = 0; i < kCurvePoints; ++i) {
    curve[i] = curve[2 * i].bytes >= curve[2 * i + 1].bytes ? curve[2 * i] : curve[2 * i + 1];
  }
  curve.resize(kCurvePoints);
  stride_ *= 2;
}

// See the header: drops waits already met, raises each kept wait over the
// next ones on the same thread (capped by avail), then marks the ops waited
// for with kPublish.
void TraceCompiler::MergeWaits() {
  std::vector<uint32_t> met(out_.ops.size(), 0);  // per other thread: ops waited for so far
  std::vector<uint32_t> touched;
  for (uint32_t t = 0; t < out_.waits.size(); ++t) {
    std::vector<Wait>& waits = out_.waits[t];
    const std::vector<WaitPoint>& points = wait_points_[t];
    std::vector<Wait> kept;
    for (size_t i = 0; i < waits.size(); ++i) {
      const uint32_t other = waits[i].thread;
      if (waits[i].ops_done <= met[other]) {
        out_.ops[t][points[i].op].flags &= static_cast<uint8_t>(~kWaits);
        continue;
      }
      uint32_t target = waits[i].ops_done;
      for (size_t j = i + 1;
           j < waits.size() && j <= i + kMergeWaits && points[j].op < points[i].op + kMergeOps;
           ++j) {
        if (waits[j].thread == other) {
          target = std::max(target, std::min(waits[j].ops_done, points[i].avail));
        }
      }
      if (met[other] == 0) touched.push_back(other);
      met[other] = target;
      kept.push_back({other, target});
    }
    waits = std::move(kept);
    out_.stats.wait_points += waits.size();
    for (uint32_t other : touched) met[other] = 0;
    touched.clear();
  }
  for (std::vector<Op>& ops : out_.ops) {
    for (Op& op : ops) op.flags &= static_cast<uint8_t>(~kPublish);
  }
  for (const std::vector<Wait>& waits : out_.waits) {
    for (const Wait& w : waits) out_.ops[w.thread][w.ops_done - 1].flags |= kPublish;
  }
}

CompiledTrace TraceCompiler::Finish() {
  FlushPending();
  MergeWaits();
  out_.live_curve.push_back(bucket_);
  out_.live_curve.push_back({out_.stats.ops, live_bytes_});
  out_.stats.threads = out_.ops.size();
  if (main_named_) {
    const auto it = thread_index_.find(main_format_thread_);
    out_.main_thread = it != thread_index_.end() ? it->second : kNoMainThread;
  } else if (!out_.ops.empty()) {
    out_.main_thread = 0;  // the first event's thread
  }
  if (out_.main_thread != kNoMainThread)
    out_.stats.main_thread_ops = out_.ops[out_.main_thread].size();
  out_.stats.slots = slots_.size();
  return std::move(out_);
}

}  // namespace heaprec::replay
