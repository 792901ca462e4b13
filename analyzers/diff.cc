// Differences of live sites by symbolized stack (diff.h).
#include "analyzers/diff.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

namespace heaprec::analyzers {

std::string FrameKey(const Frame& f) {
  std::string key = f.function;
  if (!HasFunction(f)) {
    // Where the code is in its binary: the same in every run, wherever the
    // module was loaded.
    if (f.module.empty()) {
      key += "@" + std::to_string(f.address);
    } else {
      key += (f.build_id.empty() ? f.module : f.build_id) + "+" + std::to_string(f.offset);
    }
  }
  key += '\x1f';
  key += f.file;
  key += ':';
  key += std::to_string(f.line);
  key += '\x1f';
  key += f.module;
  key += f.inlined ? "\x1ei" : "\x1e";
  return key;
}

namespace {

std::string KeyOf(const std::vector<Frame>& frames) {
  std::string key;
  for (const Frame& f : frames) key += FrameKey(f);
  return key;
}

}  // namespace

std::vector<DiffSite> DiffSites(const std::vector<Site>& before, const SymbolTable& before_symbols,
                                const std::vector<Site>& after, const SymbolTable& after_symbols) {
  std::map<std::string, DiffSite> by_key;
  for (const Site& s : before) {
    std::vector<Frame> frames = before_symbols.Frames(s.stack);
    DiffSite& d = by_key[KeyOf(frames)];
    if (d.stack.empty()) d.stack = std::move(frames);
    d.bytes -= static_cast<int64_t>(s.bytes);
    d.count -= static_cast<int64_t>(s.count);
    d.before_bytes += s.bytes;
  }
  for (const Site& s : after) {
    std::vector<Frame> frames = after_symbols.Frames(s.stack);
    DiffSite& d = by_key[KeyOf(frames)];
    d.stack = std::move(frames);  // the newer trace's addresses
    d.bytes += static_cast<int64_t>(s.bytes);
    d.count += static_cast<int64_t>(s.count);
    d.after_bytes += s.bytes;
  }
  std::vector<DiffSite> out;
  for (auto& [key, d] : by_key) {
    if (d.bytes != 0 || d.count != 0) out.push_back(std::move(d));
  }
  std::stable_sort(out.begin(), out.end(), [](const DiffSite& a, const DiffSite& b) {
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    return a.count > b.count;
  });
  return out;
}

void LiveSnapshot::OnMarker(const format::Marker& m) {
  if (adopted_) return;
  if (watch_.AtMarker(m)) taken_ = live_.Sorted(Metric::kBytes);
}

__attribute__((always_inline)) inline void LiveSnapshot::One(const format::Event& e,
                                                             const HeapChange& c) {
  // The moment is reached just before an event: the totals before it.
  if (watch_.BeforeEvent(e)) taken_ = live_.Sorted(Metric::kBytes);
  live_.Apply(c);
}

void LiveSnapshot::OnEvents(const format::EventSpan& events, const HeapChange* changes,
                            const LiveHeap&) {
  if (adopted_) return;
  format::ForEachEvent(
      events, [&](const format::Event& e, size_t i)
                  __attribute__((always_inline)) { One(e, changes[i]); });
}

void LiveSnapshot::StartFrom(const LiveHeap& heap) {
  heap.blocks().ForEach([&](uint64_t id, const LiveBlock& b) {
    const Estimate est = heap.EstimateOf(id, b);
    live_.Add(b.stack, est.bytes, est.count);
  });
}

void LiveSnapshot::Adopt(std::vector<Site> sites, const MomentWatch& watch) {
  taken_ = std::move(sites);
  watch_ = watch;
  adopted_ = true;
}

std::vector<Site> LiveSnapshot::Sites() const {
  return taken_ ? *taken_ : live_.Sorted(Metric::kBytes);
}

}  // namespace heaprec::analyzers
