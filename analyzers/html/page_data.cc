// The data of an HTML report (page_data.h, DATA.md).
#include "analyzers/html/page_data.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "analyzers/html/page_leak_kinds.h"
#include "analyzers/html/page_stacks.h"
#include "analyzers/process_end.h"
#include "analyzers/recording_losses.h"
#include "analyzers/sampling_notice.h"

namespace heaprec::analyzers::html {
namespace {

using nlohmann::json;

json TraceJson(const PageInputs& in) {
  const Analysis& a = *in.analysis;
  json args = json::array();
  json t = {{"path", in.trace.path},
            {"program", ""},
            {"args", args},
            {"pid", 0},
            {"hostname", ""},
            {"start_realtime_ns", 0},
            {"format_version",
             std::to_string(in.trace.version.major) + "." + std::to_string(in.trace.version.minor)},
            {"truncated", in.trace.truncated},
            {"ppid", 0},
            {"parent", nullptr},
            {"exit", "unknown"}};
  if (a.process()) {
    const format::ProcessInfo& p = *a.process();
    t["program"] = p.program;
    t["args"] = p.args;
    t["pid"] = p.pid;
    t["hostname"] = p.hostname;
    t["start_realtime_ns"] = p.start_realtime_ns;
    t["ppid"] = p.ppid;
    if (!p.parent_trace.empty()) t["parent"] = p.parent_trace;
    if (p.sample_rate != 0) t["sampling"] = {{"rate", p.sample_rate}};
  }
  // Decoded (process_end.h), never the raw wait status.
  if (a.end()) t["exit"] = ExitWords(a.end()->exit_status, a.end()->replaced_by_exec);
  AddExitJson(a.end() ? a.end()->exit_status : -1, &t);
  return t;
}

json BucketsJson(const RangeProfile& r) {
  json start = json::array(), end = json::array(), live = json::array(), max = json::array(),
       max_time = json::array();
  for (const RangeBucket& b : r.buckets()) {
    start.push_back(b.start_ns);
    end.push_back(b.end_ns);
    live.push_back(b.live_end);
    max.push_back(b.max_live);
    max_time.push_back(b.max_time_ns);
  }
  return {{"start_ns", start},
          {"end_ns", end},
          {"live_end", live},
          {"max_live", max},
          {"max_time_ns", max_time}};
}

// The 10 numbers of a cell, by DATA.md's name.
using CellField = int64_t RangeCell::*;
const std::pair<const char*, CellField> kCellFields[] = {
    {"calls_n", &RangeCell::calls_n}, {"calls_b", &RangeCell::calls_b},
    {"net_n", &RangeCell::net_n},     {"net_b", &RangeCell::net_b},
    {"peak_n", &RangeCell::peak_n},   {"peak_b", &RangeCell::peak_b},
    {"temp_n", &RangeCell::temp_n},   {"temp_b", &RangeCell::temp_b},
    {"leak_n", &RangeCell::leak_n},   {"leak_b", &RangeCell::leak_b}};

// Cells by node: stacks that name the same frames add up.
json CellsJson(const RangeProfile& r, StackNodes* nodes) {
  // (node, bucket, cell index), sorted: cells of one key come together and
  // add up (a sorted vector rather than a map of cells: a tenth of --html's
  // time on cppcheck's trace went to the map).
  const std::vector<RangeCell>& all = r.cells();
  std::vector<std::tuple<int32_t, uint32_t, uint32_t>> keys;
  keys.reserve(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    keys.emplace_back(nodes->NodeOf(all[i].stack), all[i].bucket, static_cast<uint32_t>(i));
  }
  std::sort(keys.begin(), keys.end());
  json node = json::array(), bucket = json::array();
  std::vector<json> columns(std::size(kCellFields), json::array());
  for (size_t k = 0; k < keys.size();) {
    const auto [n, b, first] = keys[k];
    RangeCell c = all[first];
    for (++k; k < keys.size() && std::get<0>(keys[k]) == n && std::get<1>(keys[k]) == b; ++k) {
      for (const auto& [name, field] : kCellFields) c.*field += all[std::get<2>(keys[k])].*field;
    }
    node.push_back(n);
    bucket.push_back(b);
    for (size_t i = 0; i < columns.size(); ++i) columns[i].push_back(c.*kCellFields[i].second);
  }
  json cells = {{"node", node}, {"bucket", bucket}};
  for (size_t i = 0; i < columns.size(); ++i) cells[kCellFields[i].first] = std::move(columns[i]);
  return cells;
}

// "leaks": which kinds the leaks view and table count, what they come to,
// and the totals per kind (null when unknown, with the reason).
json LeaksJson(const LeakReport& r, LeakKindSet shown) {
  uint64_t bytes = 0, blocks = 0;
  for (const Site& s : ShownSites(r, shown)) {
    bytes += s.bytes;
    blocks += s.count;
  }
  json j = {{"shown_kinds", shown.ToString()}, {"bytes", bytes}, {"blocks", blocks}};
  j["kinds"] = r.no_scan.empty() ? LeakKindsJson(r) : json(nullptr);
  j["kinds_unknown"] = r.no_scan;
  return j;
}

LeakReport LeakReportOf(const Analysis& a, const Suppressions* suppressions) {
  return BuildLeakReport(a.heap(), a.LeakScanNow(), a.LeakScanMissing(), a.symbols(), suppressions);
}

json BaseJson(const PageBase& b, LeakKindSet leak_kinds, PageStacks* stacks) {
  StackNodes nodes(b.analysis->symbols(), stacks);
  // node -> the 8 totals, in the order of kFields.
  static const char* const kFields[] = {"calls_n", "calls_b", "peak_n", "peak_b",
                                        "temp_n",  "temp_b",  "leak_n", "leak_b"};
  std::map<int32_t, std::array<uint64_t, 8>> by_node;
  auto add = [&](const std::vector<Site>& sites, size_t field) {
    for (const Site& s : sites) {
      auto& v = by_node[nodes.NodeOf(s.stack)];
      v[field] += s.count;
      v[field + 1] += s.bytes;
    }
  };
  add(b.hot->HotSites(), 0);
  add(b.peak->Sites(), 2);
  add(b.hot->TemporarySites(), 4);
  const LeakReport leaks = LeakReportOf(*b.analysis, b.suppressions);
  add(ShownSites(leaks, leak_kinds), 6);
  json node = json::array();
  std::vector<json> columns(8, json::array());
  for (const auto& [n, v] : by_node) {
    node.push_back(n);
    for (size_t i = 0; i < 8; ++i) columns[i].push_back(v[i]);
  }
  json sites = {{"node", node}};
  for (size_t i = 0; i < 8; ++i) sites[kFields[i]] = std::move(columns[i]);
  const format::ProcessInfo* p = b.analysis->process() ? &*b.analysis->process() : nullptr;
  return {{"path", b.path},
          {"program", p ? p->program : ""},
          {"pid", p ? p->pid : 0},
          {"summary", SummaryJson(*b.analysis, *b.summary)},
          {"leaks", LeaksJson(leaks, leak_kinds)},
          {"sites", sites},
          {"leak_kinds", BaseLeakKindsJson(leaks, &nodes)}};
}

// "rss": the process's RSS samples (format 3.4) as columns, or null.
json RssPageJson(const RssTrack& rss) {
  if (!rss.has_samples()) return nullptr;
  json time = json::array(), total = json::array(), anon = json::array();
  for (const RssPoint& p : rss.points()) {
    time.push_back(p.sample.time_ns);
    total.push_back(p.sample.total_bytes());
    anon.push_back(p.sample.anon_bytes);
  }
  return {{"time_ns", time}, {"rss", total}, {"anon", anon}};
}

// "lifetimes": per node (the stacks that land on one node merged), the
// blocks released, those released by another thread, and the median
// lifetime in time and in blocks made in between; or null.
json LifetimesPageJson(const LifetimeAnalyzer* l, StackNodes* nodes) {
  if (l == nullptr) return nullptr;
  // Only sites that released a block show lifetimes. Grouped by node without
  // copying a site's histograms (1 KiB each) unless two sites share a node:
  // tests/many_stacks has 262,144 sites.
  std::vector<std::pair<int32_t, uint32_t>> by_node;  // (node, stack)
  l->ForEach([&](uint32_t stack, const SiteLifetimes& s) {
    if (s.time_ns.total != 0) by_node.emplace_back(nodes->NodeOf(stack), stack);
  });
  std::sort(by_node.begin(), by_node.end());
  json node = json::array(), freed = json::array(), other = json::array();
  json p50_ns = json::array(), p50_between = json::array();
  SiteLifetimes merged;
  for (size_t i = 0; i < by_node.size();) {
    size_t j = i + 1;
    while (j < by_node.size() && by_node[j].first == by_node[i].first) ++j;
    const SiteLifetimes* s = l->Of(by_node[i].second);
    if (j - i > 1) {
      merged = SiteLifetimes();
      for (size_t k = i; k < j; ++k) merged.Add(*l->Of(by_node[k].second));
      s = &merged;
    }
    node.push_back(by_node[i].first);
    freed.push_back(s->time_ns.total);
    other.push_back(s->freed_by_other_thread);
    p50_ns.push_back(s->time_ns.Quantile(0.5));
    p50_between.push_back(s->allocations_between.Quantile(0.5));
    i = j;
  }
  return {{"node", node},
          {"freed", freed},
          {"other_thread", other},
          {"p50_ns", p50_ns},
          {"p50_between", p50_between}};
}

}  // namespace

std::vector<std::string> PageWarnings(const PageInputs& in) {
  std::vector<std::string> out;
  if (in.analysis->heap().sampled()) {
    std::string notice = SamplingNotice(in.analysis->heap().sample_rate());
    notice[0] = 'S';
    out.push_back(notice + ": each recorded allocation stands for the calls it was sampled from.");
  }
  if (in.trace.truncated) {
    out.push_back(
        "The trace is truncated: the recording goes on past its last whole chunk, so what "
        "happened after the cut is missing (blocks freed after it count as leaked).");
  }
  for (const std::string& note : in.notes) out.push_back("Symbols: " + note + ".");
  const std::string missing = MissingSymbolsText(in.missing_symbols);
  if (!missing.empty()) out.push_back("Symbols: " + missing + ".");
  if (!in.analysis->end()) return out;
  // The recorder's counters that mean something is missing from the trace.
  for (const RecordingLoss& loss : RecordingLosses(in.analysis->end())) {
    if (loss.value != 0) out.push_back(LossSentence(loss));
  }
  return out;
}

json PageData(const PageInputs& in) {
  const Analysis& a = *in.analysis;
  PageStacks stacks;
  StackNodes nodes(a.symbols(), &stacks);
  json page;
  page["format"] = 1;
  page["trace"] = TraceJson(in);
  page["summary"] = SummaryJson(a, *in.summary);
  std::optional<LeakReport> own_leaks;
  if (in.leaks == nullptr) own_leaks = LeakReportOf(a, nullptr);
  const LeakReport& leaks = in.leaks != nullptr ? *in.leaks : *own_leaks;
  page["leaks"] = LeaksJson(leaks, in.leak_kinds);
  page["warnings"] = PageWarnings(in);
  page["symbols"] = MissingSymbolsJson(in.missing_symbols);
  page["buckets"] = BucketsJson(*in.range);
  // Each marker's bucket: the first that starts at or after it (exactly at
  // it when the profile kept the marker as a boundary).
  const std::vector<RangeBucket>& buckets = in.range->buckets();
  json markers = json::array();
  for (const format::Marker& m : a.markers()) {
    const auto it =
        std::lower_bound(buckets.begin(), buckets.end(), m.seq,
                         [](const RangeBucket& b, uint64_t seq) { return b.start_seq < seq; });
    markers.push_back({{"label", m.label},
                       {"time_ns", m.time_ns},
                       {"bucket", it - buckets.begin()},
                       {"exact", it != buckets.end() && it->start_seq == m.seq}});
  }
  page["markers"] = markers;
  page["cells"] = CellsJson(*in.range, &nodes);
  page["leak_kinds"] = LeakKindsPageJson(leaks, a.heap(), *in.range, &nodes);
  page["rss"] = RssPageJson(a.rss());
  page["lifetimes"] = LifetimesPageJson(in.lifetimes, &nodes);
  page["base"] = in.base ? BaseJson(*in.base, in.leak_kinds, &stacks) : json(nullptr);
  page["bench"] = in.bench;
  stacks.AddTo(&page);
  return page;
}

}  // namespace heaprec::analyzers::html
