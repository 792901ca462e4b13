// Checks of a loaded chunk that every format version shares (chunk_checks.h).
#include "format/internal/chunk_checks.h"

#include <limits>

#include "format/leak_scan_columns.h"
#include "format/rss_columns.h"
#include "format/symbol_columns.h"

namespace heaprec::format::detail {

bool CheckStacks(const fb::Chunk& c, const Columns& k, uint32_t last_stack_id, std::string* error) {
  const size_t n = k.stack_parent.size();
  if (n > 0 && c.base_stack_id() != last_stack_id) {
    *error = "stack ids do not continue (base " + std::to_string(c.base_stack_id()) +
             ", expected " + std::to_string(last_stack_id) + ")";
    return false;
  }
  if (n > std::numeric_limits<uint32_t>::max() - uint64_t{last_stack_id}) {
    *error = "too many stack ids";
    return false;
  }
  for (size_t i = 0; i < n; ++i) {
    const uint32_t id = last_stack_id + 1 + static_cast<uint32_t>(i);
    if (k.stack_parent[i] >= id) {
      *error = "stack node " + std::to_string(id) + " has a later parent";
      return false;
    }
  }
  return true;
}

bool CheckEvents(const fb::Chunk& c, const Columns& k, uint64_t prev_seq, uint32_t max_stack,
                 ColumnLayout layout, std::string* error) {
  const size_t n = k.n;
  const bool fixed = layout == ColumnLayout::kFixed;
  if (n > 0 && c.base_seq() < prev_seq) {
    *error = "events go back in sequence (base " + std::to_string(c.base_seq()) + " < " +
             std::to_string(prev_seq) + ")";
    return false;
  }
  size_t aligned = 0, reallocs = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t b = c.api()->Get(i);
    const Api api = ApiOf(b, layout);
    if (!IsValid(api) ||
        (!fixed && (b & kApiNoBlockFlag) != 0 && KindOf(api) == EventKind::kFree)) {
      *error = "event " + std::to_string(i) + " has invalid api " + std::to_string(b);
      return false;
    }
    // Format 1's seq deltas are plain: 0 repeats a seq. (Format 2's repeats
    // show when its events are sorted; format 3's seqs cannot repeat.)
    if (fixed && k.seq_delta[i] == 0) {
      *error = "event " + std::to_string(i) + " repeats a sequence number";
      return false;
    }
    if (k.stack[i] > max_stack) {
      *error = "event " + std::to_string(i) + " names unknown stack " + std::to_string(k.stack[i]);
      return false;
    }
    aligned += HasAlignment(api);
    reallocs += HasOldAddress(api);
  }
  // Formats 2 and 3 keep old addresses only with the addresses.
  const size_t olds = fixed || !k.address_delta.empty() ? reallocs : 0;
  if (Len(c.alignment()) != aligned || Len(c.old_address()) != olds) {
    *error = "sparse columns do not match the events";
    return false;
  }
  return true;
}

bool CheckMarkers(const fb::Chunk& c, uint64_t prev_seq, std::string* error) {
  if (!c.markers()) return true;
  uint64_t last = prev_seq;
  for (const fb::Marker* m : *c.markers()) {
    if (m->seq() <= last) {
      *error = "marker out of order (seq " + std::to_string(m->seq()) + ")";
      return false;
    }
    last = m->seq();
  }
  return true;
}

bool LoadLeakScans(const fb::Chunk& c, uint64_t prev_seq, OpenLeakScan* open, Columns* k,
                   std::string* error) {
  const size_t n = Len(c.leak_scans());
  k->leak_scans.resize(n);
  OpenLeakScan o = *open;
  uint64_t last = prev_seq;
  for (size_t i = 0; i < n; ++i) {
    LeakScan& s = k->leak_scans[i];
    const fb::LeakScan& f = *c.leak_scans()->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (!DecodeLeakScan(f, o.roots, &s, error)) return false;
    if (o.open ? s.seq != o.seq || s.part != o.next_part : s.part != 0 || s.seq <= last) {
      *error = "leak scan out of order (seq " + std::to_string(s.seq) + ", part " +
               std::to_string(s.part) + ")";
      return false;
    }
    o = {s.more, s.seq, s.part + 1, s.part == 0 ? s.roots.size() : o.roots};
    last = s.seq;
  }
  *open = o;
  return true;
}

bool LoadRssSamples(const fb::Chunk& c, uint64_t prev_event_seq, RssSample* last, Columns* k,
                    std::string* error) {
  k->rss_samples.clear();
  if (c.rss_samples() == nullptr) return true;
  if (!DecodeRssSamples(*c.rss_samples(), &k->rss_samples, error)) return false;
  if (k->rss_samples.empty()) return true;
  const RssSample& first = k->rss_samples.front();
  if (first.seq <= prev_event_seq || first.seq < last->seq || first.time_ns < last->time_ns) {
    *error = "RSS sample out of order (seq " + std::to_string(first.seq) + ")";
    return false;
  }
  *last = k->rss_samples.back();
  return true;
}

bool LoadSymbols(const fb::Chunk& c, Columns* k, std::string* error) {
  k->symbols.clear();
  if (c.symbol_columns() == nullptr) return true;
  return DecodeSymbolColumns(*c.symbol_columns(), &k->symbols, error);
}

}  // namespace heaprec::format::detail
