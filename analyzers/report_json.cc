// The JSON report (report.h): docs/DESIGN.md's contract, plus heaprec's own keys.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyzers/human_bytes.h"
#include "analyzers/json_text.h"
#include "analyzers/process_end.h"
#include "analyzers/recording_losses.h"
#include "analyzers/report.h"
#include "analyzers/rss_report.h"
#include "analyzers/sampling_notice.h"

namespace heaprec::analyzers {
namespace {

using nlohmann::json;

// A FRAME object, its keys in the order dump writes a json object's.
void WriteFrame(JsonText& out, const Frame& f, int indent) {
  const int in = indent + 2;
  out.Raw("{");
  out.Key(in, "address");
  out.String(Hex(f.address));
  out.Raw(",");
  out.Key(in, "allocator");
  out.Raw(f.allocator ? "true," : "false,");
  out.Key(in, "file");
  if (f.file.empty()) {
    out.Raw("null");
  } else {
    out.String(f.file);
  }
  out.Raw(",");
  out.Key(in, "function");
  out.String(f.function);
  out.Raw(",");
  out.Key(in, "inlined");
  out.Raw(f.inlined ? "true," : "false,");
  out.Key(in, "line");
  out.Raw(f.line == 0 ? "null" : std::to_string(f.line));
  out.Raw(",");
  out.Key(in, "module");
  out.String(f.module);
  out.Raw(",");
  out.Key(in, "offset");
  if (f.module.empty()) {
    out.Raw("null");
  } else {
    out.String(Hex(f.offset));
  }
  out.Line(indent);
  out.Raw("}");
}

// Fills a "stack" placeholder with frames, as an array of FRAME objects.
JsonText::Fill StackFill(const std::vector<Frame>* frames) {
  return [frames](JsonText& out, int indent) {
    out.Array(frames->size(), indent, [&](size_t i, int in) { WriteFrame(out, (*frames)[i], in); });
  };
}

// A site's "via": its first frame outside the allocator and its wrappers
// (ViaIndex), as FrameName names it; null without a stack.
json ViaJson(const std::vector<Frame>& frames) {
  return frames.empty() ? json(nullptr) : json(FrameName(frames[ViaIndex(frames)]));
}

// A site's frames, innermost first, as the symbol table keeps them: they stay
// where they are while the report is written (no module, symbol or allocator
// list is added then; kept frames are only added to, and do not move), so
// each frame's text is made once however many sites show it.
std::vector<const Frame*> KeptFrames(const SymbolTable& symbols, uint32_t stack) {
  std::vector<const Frame*> out;
  for (const uint64_t address : symbols.stacks().Frames(stack)) {
    for (const Frame& f : symbols.KeptFramesOf(address)) out.push_back(&f);
  }
  return out;
}

// ViaJson of kept frames.
json ViaJson(const std::vector<const Frame*>& frames) {
  return frames.empty() ? json(nullptr) : json(FrameName(*frames[ViaIndex(frames)]));
}

// WriteFrame's text per kept frame and indent, written once: escaping every
// frame's names again for every site was the largest part of writing a
// report's sites (cppcheck: 48,881 sites of ~30 frames).
class FrameTexts {
 public:
  const std::string& Of(const Frame& f, int indent) {
    std::string& text = texts_[{&f, indent}];
    if (text.empty()) {
      JsonText scratch;
      WriteFrame(scratch, f, indent);
      text = scratch.text();
    }
    return text;
  }

 private:
  struct KeyHash {
    size_t operator()(const std::pair<const Frame*, int>& k) const {
      return std::hash<const void*>()(k.first) * 31 + static_cast<size_t>(k.second);
    }
  };
  std::unordered_map<std::pair<const Frame*, int>, std::string, KeyHash> texts_;
};

// StackFill of kept frames, their texts from texts.
JsonText::Fill StackFill(const std::vector<const Frame*>* frames, FrameTexts* texts) {
  return [frames, texts](JsonText& out, int indent) {
    out.Array(frames->size(), indent,
              [&](size_t i, int in) { out.Raw(texts->Of(*(*frames)[i], in)); });
  };
}

// The SITE objects of sites, each with its "lifetimes" (lifetimes.h) when
// lifetimes is set. Each site is built, written and dropped in turn.
JsonText::Fill SitesFill(std::vector<Site> list, const SymbolTable* symbols,
                         const LifetimeAnalyzer* lifetimes) {
  auto sites = std::make_shared<const std::vector<Site>>(std::move(list));
  return [sites, symbols, lifetimes](JsonText& out, int indent) {
    FrameTexts texts;
    out.Array(sites->size(), indent, [&](size_t i, int in) {
      const Site& s = (*sites)[i];
      const std::vector<const Frame*> frames = KeptFrames(*symbols, s.stack);
      json site = {{"bytes", s.bytes},
                   {"count", s.count},
                   {"via", ViaJson(frames)},
                   {"stack", JsonText::Later(0)}};
      if (lifetimes != nullptr) site["lifetimes"] = LifetimesJson(lifetimes->Of(s.stack));
      out.Value(site, in, {StackFill(&frames, &texts)});
    });
  };
}

json TotalsJson(const KindTotals& t) { return {{"bytes", t.bytes}, {"blocks", t.blocks}}; }

// "leaks": the contract's bytes, blocks (every block live) and sites (those
// of the kinds shown), each site with its kind and, if still reachable, what
// holds it; the totals by kind as memcheck's LEAK SUMMARY has them.
json LeaksJson(const LeakReport& l, LeakKindSet shown, const SymbolTable& symbols,
               JsonText::Fills* fills) {
  std::vector<const LeakSite*> listed;
  for (const LeakSite& s : l.sites) {
    if (Shown(s, shown)) listed.push_back(&s);
  }
  const json sites = JsonText::Later(fills->size());
  fills->push_back([listed = std::move(listed), &symbols](JsonText& out, int indent) {
    FrameTexts texts;
    out.Array(listed.size(), indent, [&](size_t i, int in) {
      const LeakSite& s = *listed[i];
      const std::vector<const Frame*> frames = KeptFrames(symbols, s.site.stack);
      json site = {{"bytes", s.site.bytes},
                   {"count", s.site.count},
                   {"kind", LeakKindKey(s.kind)},
                   {"via", ViaJson(frames)},
                   {"stack", JsonText::Later(0)}};
      if (s.kind == format::LeakKind::kDefinite) site["indirect_bytes"] = s.indirect_bytes;
      if (s.kind == format::LeakKind::kReachable) {
        json held = json::array();
        for (const HeldBy& h : s.held_by) held.push_back({{"root", h.root}, {"bytes", h.bytes}});
        site["held_by"] = held;
      }
      out.Value(site, in, {StackFill(&frames, &texts)});
    });
  });
  json j = {{"bytes", l.in_use.bytes}, {"blocks", l.in_use.blocks}, {"sites", sites}};
  j["kinds"] = LeakKindsJson(l);
  j["shown_kinds"] = shown.ToString();
  if (l.scan != nullptr) {
    static const char* const kReasons[] = {"unknown", "exit", "request", "signal"};
    static const char* const kStatus[] = {"done", "approximate", "not_done"};
    j["scan"] = {{"seq", l.scan->seq},
                 {"time_ns", l.scan->time_ns},
                 {"reason", kReasons[static_cast<int>(l.scan->reason) % 4]},
                 {"status", kStatus[static_cast<int>(l.scan->status) % 3]},
                 {"note", l.scan->note},
                 {"label", l.scan->label},
                 {"pause_ns", l.scan->pause_ns},
                 {"bytes_scanned", l.scan->bytes_scanned}};
  }
  if (!l.no_scan.empty()) j["kinds_unknown"] = l.no_scan;
  return j;
}

}  // namespace

json LeakKindsJson(const LeakReport& l) {
  json kinds;
  for (const format::LeakKind k : {format::LeakKind::kDefinite, format::LeakKind::kIndirect,
                                   format::LeakKind::kPossible, format::LeakKind::kReachable}) {
    kinds[LeakKindKey(k)] = TotalsJson(l.of(k));
  }
  kinds["suppressed"] = TotalsJson(l.suppressed);
  kinds["unknown"] = TotalsJson(l.of(format::LeakKind::kUnknown));
  return kinds;
}

namespace {

json MismatchesJson(const MismatchAnalyzer& m, const SymbolTable& symbols, JsonText::Fills* fills) {
  const json items = JsonText::Later(fills->size());
  fills->push_back([&m, &symbols](JsonText& out, int indent) {
    const auto& list = m.Mismatches();
    out.Array(list.size(), indent, [&](size_t i, int in) {
      const Mismatch& x = list[i];
      std::vector<std::vector<Frame>> stacks;  // free, alloc, first free
      stacks.push_back(symbols.Frames(x.free_stack));
      json item = {{"kind", MismatchKindName(x.kind)},
                   {"free_function", format::ApiName(x.free_api)},
                   {"count", x.count},
                   {"bytes", x.bytes},
                   {"first_seq", x.first_seq},
                   {"free_stack", JsonText::Later(0)}};
      if (x.kind != MismatchKind::kUnknown) {
        item["alloc_function"] = format::ApiName(x.alloc_api);
        item["alloc_stack"] = JsonText::Later(stacks.size());
        stacks.push_back(symbols.Frames(x.alloc_stack));
      } else {
        item["address"] = Hex(x.address);
      }
      if (x.kind == MismatchKind::kSize) item["freed_size"] = x.freed_size;
      if (x.kind == MismatchKind::kDoubleFree) {
        item["first_free_stack"] = JsonText::Later(stacks.size());
        stacks.push_back(symbols.Frames(x.first_free_stack));
      }
      JsonText::Fills stack_fills;
      for (const std::vector<Frame>& frames : stacks) stack_fills.push_back(StackFill(&frames));
      out.Value(item, in, stack_fills);
    });
  });
  return {{"count", m.total()}, {"items", items}};
}

}  // namespace

json SummaryJson(const Analysis& a, const SummaryAnalyzer& s) {
  json j = {{"allocations", s.allocations()},
            {"frees", s.frees()},
            {"bytes_allocated", s.bytes_allocated()},
            {"peak_bytes", s.peak_bytes()},
            {"leaked_bytes", a.heap().live_bytes()},
            {"leaked_blocks", a.heap().live_blocks()},
            {"temporaries", s.temporaries()},
            {"duration_ns", s.duration_ns()},
            {"peak_time_ns", s.peak_time_ns()},
            {"peak_seq", s.peak_seq()},
            {"recorded_whole_life", a.heap().RecordedWholeLife()},
            {"freed_before_recording", a.heap().freed_before_recording()}};
  AddRssSummaryJson(a.rss(), &j);
  return j;
}

JsonReportDoc JsonReportValue(const Report& r, const ReportOptions& o) {
  const Analysis& a = *r.analysis;
  const SummaryAnalyzer& s = *r.summary;
  const SymbolTable& sym = a.symbols();
  JsonReportDoc doc;
  json& j = doc.value;
  JsonText::Fills* fills = &doc.fills;
  // The placeholder of a list of sites.
  const auto sites_of = [&](std::vector<Site> sites, const LifetimeAnalyzer* lifetimes) {
    fills->push_back(SitesFill(std::move(sites), &sym, lifetimes));
    return JsonText::Later(fills->size() - 1);
  };
  j["trace"] = {
      {"path", r.trace.path},
      {"program", a.process() ? a.process()->program : ""},
      {"pid", a.process() ? a.process()->pid : 0},
      {"format_version", r.trace.version.major},
      {"truncated", r.trace.truncated},
      {"ppid", a.process() ? a.process()->ppid : 0},
      {"parent", a.process() && !a.process()->parent_trace.empty() ? json(a.process()->parent_trace)
                                                                   : json(nullptr)},
      {"replaced_by_exec", a.end() && a.end()->replaced_by_exec}};
  AddExitJson(a.end() ? a.end()->exit_status : -1, &j["trace"]);
  if (!r.trace.recorded_by.empty()) {
    j["trace"]["recorded_by"] = r.trace.recorded_by;
    j["trace"]["lacks"] = r.trace.lacks;
  }
  if (a.heap().sampled()) j["sampling"] = {{"rate", a.heap().sample_rate()}};
  j["summary"] = SummaryJson(a, s);
  j["rss"] = RssJson(a.rss(), r.trace.version, o.timeline);
  if (!r.notes.empty()) j["notes"] = r.notes;
  json losses = json::object();
  for (const RecordingLoss& loss : RecordingLosses(a.end())) losses[loss.name] = loss.value;
  j["losses"] = losses;
  j["symbols"] = MissingSymbolsJson(r.missing_symbols);
  json markers = json::array();
  for (const format::Marker& m : a.markers()) {
    markers.push_back({{"label", m.label}, {"seq", m.seq}, {"time_ns", m.time_ns}});
  }
  j["markers"] = markers;
  if (a.stop()) {
    const MomentWatch& w = *a.stop();
    j["at"] = {{"moment", w.moment().text},
               {"reached", w.reached()},
               {"seq", w.seq()},
               {"time_ns", w.time_ns()},
               {"live_bytes", a.heap().live_bytes()},
               {"live_blocks", a.heap().live_blocks()}};
  }
  if (o.leaks && r.leak_report) {
    j["leaks"] = LeaksJson(*r.leak_report, o.leak_kinds, sym, fills);
    // What bytes and blocks count: blocks live at --at's moment are not leaks.
    j["leaks"]["live_at"] = a.stopped() ? a.stop()->moment().text : "end";
  }
  if (o.peak && r.peak) {
    j["peak"] = {{"bytes", r.peak->peak_bytes()},
                 {"blocks", r.peak->peak_blocks()},
                 {"time_ns", r.peak->peak_time_ns()},
                 {"seq", r.peak->peak_seq()},
                 {"sites", sites_of(r.peak->Sites(), nullptr)}};
  }
  if (o.temporaries && r.hot) {
    j["temporaries"] = {{"count", r.hot->temporaries()},
                        {"sites", sites_of(r.hot->TemporarySites(), r.lifetimes)}};
  }
  if (o.hot && r.hot) {
    j["hot"] = {{"sites", sites_of(r.hot->HotSites(), r.lifetimes)}};
  }
  if (r.lifetimes && (o.hot || o.temporaries)) j["lifetimes"] = LifetimesJson(&r.lifetimes->all());
  if (o.histogram && r.histogram) {
    json buckets = json::array();
    for (int k = 0; k < HistogramAnalyzer::kBuckets; ++k) {
      const SizeBucket b = r.histogram->bucket(k);
      if (b.count == 0) continue;
      buckets.push_back({{"low", b.low}, {"high", b.high}, {"count", b.count}, {"bytes", b.bytes}});
    }
    j["histogram"] = {{"buckets", buckets}};
  }
  if (o.timeline && r.timeline) {
    json points = json::array();
    for (const TimelinePoint& p : r.timeline->points()) {
      points.push_back({{"time_ns", p.time_ns},
                        {"seq", p.seq},
                        {"live_bytes", p.live_bytes},
                        {"max_live_bytes", p.max_live_bytes}});
      if (r.timeline->has_rss() && p.max_rss_bytes != 0) {
        points.back()["rss_bytes"] = p.rss_bytes;
        points.back()["max_rss_bytes"] = p.max_rss_bytes;
      }
    }
    j["timeline"] = {{"events_per_point", r.timeline->events_per_point()}, {"points", points}};
  }
  if (r.diff) {
    int64_t grown = 0;
    for (const DiffSite& d : r.diff->sites) grown += d.bytes;
    fills->push_back([&list = r.diff->sites](JsonText& out, int indent) {
      out.Array(list.size(), indent, [&](size_t i, int in) {
        const DiffSite& d = list[i];
        const json site = {{"bytes", d.bytes},
                           {"count", d.count},
                           {"before_bytes", d.before_bytes},
                           {"after_bytes", d.after_bytes},
                           {"via", ViaJson(d.stack)},
                           {"stack", JsonText::Later(0)}};
        out.Value(site, in, {StackFill(&d.stack)});
      });
    });
    j["diff"] = {{r.diff->across_traces ? "base" : "from", r.diff->from},
                 {"to", r.diff->to},
                 {"bytes", grown},
                 {"sites", JsonText::Later(fills->size() - 1)}};
    if (r.diff->base_sample_rate != 0) {
      j["diff"]["base_sampling"] = {{"rate", r.diff->base_sample_rate}};
    }
  }
  if (o.mismatches && r.mismatches) j["mismatches"] = MismatchesJson(*r.mismatches, sym, fills);
  return doc;
}

void WriteJsonReport(const JsonReportDoc& doc, JsonText* out) {
  out->Value(doc.value, 0, doc.fills);
  out->Raw("\n");
  out->Flush();
}

std::string JsonReportText(const JsonReportDoc& doc) {
  JsonText out;
  WriteJsonReport(doc, &out);
  return out.text();
}

std::string JsonReport(const Report& r, const ReportOptions& o) {
  return JsonReportText(JsonReportValue(r, o));
}

}  // namespace heaprec::analyzers
