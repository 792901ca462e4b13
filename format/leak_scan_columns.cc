// Leak scan columns, both directions (leak_scan_columns.h).
#include "format/leak_scan_columns.h"

#include <algorithm>
#include <cstdint>

#include "format/varint.h"
#include "format/varint_column.h"

namespace heaprec::format {
namespace {

std::string Str(const flatbuffers::String* s) {
  return s ? std::string(s->data(), s->size()) : std::string();
}

size_t Len(const flatbuffers::Vector<uint8_t>* v) { return v ? v->size() : 0; }

}  // namespace

flatbuffers::Offset<fb::LeakScan> EncodeLeakScan(flatbuffers::FlatBufferBuilder& b,
                                                 const LeakScan& s) {
  std::vector<flatbuffers::Offset<fb::LeakRoot>> roots;
  roots.reserve(s.roots.size());
  for (const LeakRoot& r : s.roots) {
    roots.push_back(fb::CreateLeakRoot(b, r.id, static_cast<uint8_t>(r.kind),
                                       b.CreateString(r.name), r.module, r.thread, r.address,
                                       r.size));
  }
  std::vector<uint8_t> blocks, retained, indirect;
  uint64_t previous = 0;
  for (size_t i = 0; i < s.blocks.size(); ++i) {
    PutVarint(&blocks, s.blocks[i] - previous);
    previous = s.blocks[i];
    if (s.KindAt(i) == LeakKind::kReachable) PutVarint(&retained, s.block_roots[i]);
    if (s.KindAt(i) == LeakKind::kDefinite) {
      PutVarint(&indirect, i < s.block_indirect.size() ? s.block_indirect[i] : 0);
    }
  }
  const auto roots_v = b.CreateVector(roots);
  const auto blocks_v = b.CreateVector(blocks);
  const auto kinds_v = b.CreateVector(s.kinds);
  const auto retained_v = b.CreateVector(retained);
  const auto indirect_v = b.CreateVector(indirect);
  const auto note = b.CreateString(s.note);
  const auto label = b.CreateString(s.label);
  return fb::CreateLeakScan(b, s.seq, s.time_ns, s.thread, static_cast<uint8_t>(s.reason),
                            static_cast<uint8_t>(s.status), note, label, roots_v, blocks_v, kinds_v,
                            retained_v, s.bytes_scanned, s.pause_ns, s.part, s.more, indirect_v);
}

bool DecodeLeakScan(const fb::LeakScan& f, size_t root_count, LeakScan* s, std::string* error) {
  *s = LeakScan{};
  s->seq = f.seq();
  s->time_ns = f.time_ns();
  s->thread = f.thread();
  if (f.reason() > static_cast<uint8_t>(LeakScan::Reason::kSignal) ||
      f.status() > static_cast<uint8_t>(LeakScan::Status::kNotDone)) {
    *error = "leak scan has an unknown reason or status";
    return false;
  }
  s->reason = static_cast<LeakScan::Reason>(f.reason());
  s->status = static_cast<LeakScan::Status>(f.status());
  s->note = Str(f.note());
  s->label = Str(f.label());
  s->bytes_scanned = f.bytes_scanned();
  s->pause_ns = f.pause_ns();
  s->part = f.part();
  s->more = f.more();
  if (f.roots()) {
    for (const fb::LeakRoot* r : *f.roots()) {
      if (r->id() != s->roots.size() + 1) {
        *error = "leak scan roots are not numbered 1, 2, ...";
        return false;
      }
      if (r->kind() > static_cast<uint8_t>(LeakRootKind::kMapping)) {
        *error = "leak scan root of unknown kind " + std::to_string(r->kind());
        return false;
      }
      s->roots.push_back({r->id(), static_cast<LeakRootKind>(r->kind()), Str(r->name()),
                          r->module_id(), r->thread(), r->address(), r->size()});
    }
  }
  const size_t n = f.kind() ? f.kind()->size() : 0;
  if (n > 0) s->kinds.assign(f.kind()->data(), f.kind()->data() + n);
  std::vector<uint64_t> deltas;
  if (!ReadVarintColumn(f.block_delta_v(), n, &deltas)) {
    *error = "leak scan blocks do not match its kinds";
    return false;
  }
  size_t reachable = 0, definite = 0;
  uint64_t block = 0;
  s->blocks.resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (deltas[i] == 0 || block + deltas[i] < block) {
      *error = "leak scan blocks do not increase";
      return false;
    }
    s->blocks[i] = block += deltas[i];
    const uint8_t k = s->kinds[i] & 7, h = s->kinds[i] >> 3;
    if (k == 0 || k > static_cast<uint8_t>(LeakKind::kReachable) ||
        h > static_cast<uint8_t>(LeakHeuristic::kMultipleInheritance)) {
      *error = "leak scan block " + std::to_string(block) + " has an unknown kind";
      return false;
    }
    reachable += k == static_cast<uint8_t>(LeakKind::kReachable);
    definite += k == static_cast<uint8_t>(LeakKind::kDefinite);
  }
  std::vector<uint64_t> indirect;
  if (Len(f.indirect_v()) != 0 || definite == 0) {
    if (!ReadVarintColumn(f.indirect_v(), definite, &indirect)) {
      *error = "leak scan indirect bytes do not match its definitely lost blocks";
      return false;
    }
  } else {
    indirect.assign(definite, 0);  // a scan written without them
  }
  s->block_indirect.assign(n, 0);
  for (size_t i = 0, d = 0; i < n; ++i) {
    if (s->KindAt(i) == LeakKind::kDefinite) s->block_indirect[i] = indirect[d++];
  }
  std::vector<uint64_t> retained;
  if (!ReadVarintColumn(f.root_v(), reachable, &retained)) {
    *error = "leak scan roots do not match its reachable blocks";
    return false;
  }
  if (s->part == 0) root_count = s->roots.size();
  s->block_roots.assign(n, 0);
  for (size_t i = 0, r = 0; i < n; ++i) {
    if (s->KindAt(i) != LeakKind::kReachable) continue;
    if (retained[r] > root_count) {
      *error = "leak scan names root " + std::to_string(retained[r]) + " of " +
               std::to_string(root_count);
      return false;
    }
    s->block_roots[i] = static_cast<uint32_t>(retained[r++]);
  }
  return true;
}

std::vector<LeakScan> SplitLeakScan(const LeakScan& s, size_t max_blocks) {
  if (s.blocks.size() <= max_blocks || max_blocks == 0) return {s};
  std::vector<LeakScan> parts;
  for (size_t start = 0; start < s.blocks.size(); start += max_blocks) {
    const size_t end = std::min(s.blocks.size(), start + max_blocks);
    LeakScan p;
    if (start == 0) {
      p = s;
      p.blocks.clear();
      p.kinds.clear();
      p.block_roots.clear();
      p.block_indirect.clear();
    } else {
      p.seq = s.seq;
      p.time_ns = s.time_ns;
      p.thread = s.thread;
      p.reason = s.reason;
      p.status = s.status;
    }
    p.blocks.assign(s.blocks.begin() + start, s.blocks.begin() + end);
    p.kinds.assign(s.kinds.begin() + start, s.kinds.begin() + end);
    p.block_roots.assign(s.block_roots.begin() + start, s.block_roots.begin() + end);
    if (s.block_indirect.size() == s.blocks.size()) {
      p.block_indirect.assign(s.block_indirect.begin() + start, s.block_indirect.begin() + end);
    }
    p.part = static_cast<uint32_t>(parts.size());
    p.more = end < s.blocks.size();
    parts.push_back(std::move(p));
  }
  return parts;
}

size_t LeakScanBytes(const LeakScan& s) {
  size_t bytes = 128 + s.note.size() + s.label.size() + 3 * s.blocks.size();
  for (const LeakRoot& r : s.roots) bytes += 48 + r.name.size();
  return bytes;
}

}  // namespace heaprec::format
