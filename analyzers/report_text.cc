// The text report (report.h): a header, one section per analysis (a
// headline, a pprof-style top table by function, then the top call stacks),
// and the summary line.
#include <cinttypes>
#include <cstdio>

#include "analyzers/human_bytes.h"
#include "analyzers/process_end.h"
#include "analyzers/recording_losses.h"
#include "analyzers/report.h"
#include "analyzers/rss_report.h"
#include "analyzers/sampling_notice.h"
#include "analyzers/top_table.h"
#include "format/switch_markers.h"

namespace heaprec::analyzers {
namespace {

std::string Seconds(uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f s", ns / 1e9);
  return buf;
}

std::string Percent(double part, double whole) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%.1f%%", whole > 0 ? 100.0 * part / whole : 0.0);
  return buf;
}

std::string Signed(int64_t bytes) {
  return (bytes < 0 ? "-" : "+") + HumanBytes(bytes < 0 ? -static_cast<uint64_t>(bytes) : bytes);
}

// A site's stack; when its innermost frames are the allocator's wrappers
// (Frame::allocator: built in, or heapreplay --alloc-fn), a first line names
// the frame the site came through ("via caller") and those frames are tagged.
void AppendFrames(std::string* out, const std::vector<Frame>& frames) {
  if (frames.empty()) *out += "      (no stack recorded)\n";
  const size_t via = ViaIndex(frames);
  if (via > 0) *out += "      via " + FrameName(frames[via]) + "\n";
  for (size_t i = 0; i < frames.size(); ++i) {
    const Frame& f = frames[i];
    *out += "      ";
    *out += i < via ? "(allocator) " : "";
    *out += f.inlined ? "(inlined) " : "";
    *out += FrameName(f);
    if (!f.file.empty()) *out += "  " + f.file + ":" + std::to_string(f.line);
    // An unnamed frame's name already says its module (git+0x1f069).
    if (!f.module.empty() && HasFunction(f)) *out += "  [" + f.module + "]";
    *out += "\n";
  }
}

size_t Shown(size_t top, size_t n) { return top == 0 || top > n ? n : top; }

void AppendMore(std::string* out, size_t shown, size_t n, const char* what) {
  if (shown < n) {
    *out += "\n  ... " + std::to_string(n - shown) + " more " + what + " (--top 0 shows all)\n";
  }
}

// One section: headline, top table (unless overview), the top sites.
// `describe` renders a site's line.
template <typename Describe>
void AppendSites(std::string* out, const Report& r, const std::vector<Site>& sites, Metric metric,
                 uint64_t total, bool table, size_t top, Describe describe) {
  if (table && !sites.empty()) {
    *out += "\n";
    *out += TopTableText(TopFunctions(sites, metric, r.analysis->symbols()), total, metric, top);
  }
  const size_t shown = Shown(top, sites.size());
  for (size_t i = 0; i < shown; ++i) {
    *out += "\n  #" + std::to_string(i + 1) + "  " + describe(sites[i]) + "\n";
    AppendFrames(out, r.analysis->symbols().Frames(sites[i].stack));
  }
  AppendMore(out, shown, sites.size(), "call stacks");
}

// What the scan that answers for the moment was.
std::string ScanWords(const format::LeakScan& s) {
  std::string when = s.reason == format::LeakScan::Reason::kExit ? "at the end of the process"
                     : s.label.empty()                           ? "asked for"
                                                                 : "at " + s.label;
  // A scan done as a signal ended the process names it ("the process was
  // ending on SIGSEGV (signal 11)"); an approximate one says so below.
  if (s.status == format::LeakScan::Status::kDone && !s.note.empty()) when += ", as " + s.note;
  return "the leak scan " + when + " (" + Seconds(s.pause_ns) + " paused)";
}

// memcheck's LEAK SUMMARY, the same lines and spellings.
void AppendLeakSummary(std::string* out, const LeakReport& l) {
  using format::LeakKind;
  *out += "LEAK SUMMARY:\n";
  *out += "   definitely lost: " + TotalsText(l.of(LeakKind::kDefinite)) + "\n";
  *out += "   indirectly lost: " + TotalsText(l.of(LeakKind::kIndirect)) + "\n";
  *out += "     possibly lost: " + TotalsText(l.of(LeakKind::kPossible)) + "\n";
  *out += "   still reachable: " + TotalsText(l.of(LeakKind::kReachable)) + "\n";
  static const char* const kHeuristics[] = {"", "stdstring", "length64", "newarray",
                                            "multipleinheritance"};
  bool any = false;
  for (size_t h = 1; h < l.heuristics.size(); ++h) any |= l.heuristics[h].blocks > 0;
  if (any) {
    *out += "                      of which reachable via heuristic:\n";
    for (size_t h = 1; h < l.heuristics.size(); ++h) {
      if (l.heuristics[h].blocks == 0) continue;
      char name[24];
      std::snprintf(name, sizeof(name), "%-19s", kHeuristics[h]);
      *out += std::string("                        ") + name + ": " + TotalsText(l.heuristics[h]) +
              "\n";
    }
  }
  *out += "        suppressed: " + TotalsText(l.suppressed) + "\n";
}

void AppendLeaks(std::string* out, const Report& r, const ReportOptions& o, bool table,
                 size_t top) {
  const Analysis& a = *r.analysis;
  const LeakReport& l = *r.leak_report;
  // Before the end a block not freed yet is live, not leaked: say when. So
  // is one still allocated when heaprec -p detached from a process that ran on.
  const bool detached = !a.markers().empty() && a.markers().back().label == format::kDetachLabel;
  const std::string moment = a.stopped() ? "live at " + a.LiveAt()
                             : detached  ? "live when heaprec detached (the process ran on)"
                                         : "not freed at the end";
  *out += "\n" + moment + ": " + HumanBytes(l.in_use.bytes) + " in " +
          std::to_string(l.in_use.blocks) + " blocks";
  if (!l.no_scan.empty()) {
    *out += "; kinds unknown: " + l.no_scan + "\n";
  } else {
    *out += "; " + ScanWords(*l.scan) + " found:\n";
    if (l.scan->status == format::LeakScan::Status::kApproximate) {
      *out += "(approximate: " + l.scan->note + ")\n";
    }
    AppendLeakSummary(out, l);
  }
  std::vector<const LeakSite*> shown;
  for (const LeakSite& s : l.sites) {
    if (Shown(s, o.leak_kinds)) shown.push_back(&s);
  }
  if (l.no_scan.empty()) {
    *out += "\nsites of " + o.leak_kinds.ToString() + " (--leak-kinds)";
    *out += shown.empty() ? ": none\n" : ":\n";
  }
  const uint64_t total = l.no_scan.empty() ? 0 : l.in_use.bytes;
  std::vector<Site> sites;
  for (const LeakSite* s : shown) sites.push_back(s->site);
  if (table && !sites.empty()) {
    uint64_t shown_bytes = 0;
    for (const Site& s : sites) shown_bytes += s.bytes;
    *out += "\n";
    *out += TopTableText(TopFunctions(ShownSites(l, o.leak_kinds), Metric::kBytes, a.symbols()),
                         shown_bytes, Metric::kBytes, top);
  }
  (void)total;
  const size_t n = Shown(top, shown.size());
  for (size_t i = 0; i < n; ++i) {
    const LeakSite& s = *shown[i];
    std::string line = s.indirect_bytes == 0 ? HumanBytes(s.site.bytes)
                                             : HumanBytes(s.site.bytes + s.indirect_bytes) + " (" +
                                                   HumanBytes(s.site.bytes) + " direct, " +
                                                   HumanBytes(s.indirect_bytes) + " indirect)";
    line += " in " + std::to_string(s.site.count) + " blocks, " +
            (s.kind == format::LeakKind::kUnknown && a.stopped() ? "live, kind unknown"
                                                                 : LeakKindWords(s.kind));
    if (!s.held_by.empty()) {
      line += ", held by ";
      for (size_t k = 0; k < s.held_by.size() && k < 3; ++k) {
        line +=
            (k > 0 ? ", " : "") + s.held_by[k].root + " (" + HumanBytes(s.held_by[k].bytes) + ")";
      }
      if (s.held_by.size() > 3) line += ", ...";
    }
    *out += "\n  #" + std::to_string(i + 1) + "  " + line + ", allocated at:\n";
    AppendFrames(out, a.symbols().Frames(s.site.stack));
  }
  AppendMore(out, n, shown.size(), "call stacks");
}

void AppendPeak(std::string* out, const Report& r, bool table, size_t top) {
  const PeakAnalyzer& p = *r.peak;
  const std::vector<Site> sites = p.Sites();
  *out += "\npeak " + HumanBytes(p.peak_bytes()) + " in " + std::to_string(p.peak_blocks()) +
          " blocks at " + Seconds(p.peak_time_ns()) + " (seq " + std::to_string(p.peak_seq()) +
          "), held by " + std::to_string(sites.size()) + " call stacks\n";
  AppendSites(out, r, sites, Metric::kBytes, p.peak_bytes(), table, top, [&](const Site& s) {
    return HumanBytes(s.bytes) + " (" + Percent(s.bytes, p.peak_bytes()) + ") in " +
           std::to_string(s.count) + " blocks at the peak, allocated at:";
  });
}

void AppendTemporaries(std::string* out, const Report& r, bool table, size_t top, bool define) {
  const std::vector<Site> sites = r.hot->TemporarySites();
  const uint64_t total = r.hot->temporaries();
  *out += "\n" + std::to_string(total) + " temporaries (" +
          Percent(total, r.summary->allocations()) + " of " +
          std::to_string(r.summary->allocations()) + " allocations) from " +
          std::to_string(sites.size()) + " call stacks\n";
  if (define) {
    *out +=
        "  (heaptrack's definition: a free of a block of the same call stack and size as the\n"
        "  latest allocation, nothing allocated or freed in between; a realloc is a free, then\n"
        "  an allocation. One difference: realloc(p, 0) frees p here, heaptrack ignores it.)\n";
  }
  AppendSites(out, r, sites, Metric::kCount, total, table, top, [&](const Site& s) {
    return std::to_string(s.count) + " temporaries (" + Percent(s.count, total) + "), " +
           HumanBytes(s.bytes) + ", allocated at:";
  });
}

void AppendHot(std::string* out, const Report& r, bool table, size_t top) {
  const std::vector<Site> sites = r.hot->HotSites();
  const uint64_t total = r.summary->allocations();
  *out += "\n" + std::to_string(total) + " allocation calls (" +
          HumanBytes(r.summary->bytes_allocated()) + ") from " + std::to_string(sites.size()) +
          " call stacks\n";
  AppendSites(out, r, sites, Metric::kCount, total, table, top, [&](const Site& s) {
    return std::to_string(s.count) + " calls (" + Percent(s.count, total) + "), " +
           HumanBytes(s.bytes) + " allocated, at:";
  });
}

void AppendHistogram(std::string* out, const Report& r) {
  const HistogramAnalyzer& h = *r.histogram;
  uint64_t total = 0;
  for (int k = 0; k < HistogramAnalyzer::kBuckets; ++k) total += h.bucket(k).count;
  *out += "\nallocation sizes (" + std::to_string(total) + " calls)\n";
  char line[160];
  std::snprintf(line, sizeof(line), "  %23s %12s %7s %12s\n", "size", "calls", "calls%", "bytes");
  *out += line;
  for (int k = 0; k < HistogramAnalyzer::kBuckets; ++k) {
    const SizeBucket b = h.bucket(k);
    if (b.count == 0) continue;
    const std::string range = HumanBytes(b.low) + " .. " + HumanBytes(b.high);
    const size_t bar = total ? static_cast<size_t>(40.0 * b.count / total + 0.5) : 0;
    std::snprintf(line, sizeof(line), "  %23s %12" PRIu64 " %7s %12s  ", range.c_str(), b.count,
                  Percent(b.count, total).c_str(), HumanBytes(b.bytes).c_str());
    *out += line + std::string(bar, '#') + "\n";
  }
}

void AppendDiff(std::string* out, const Report& r, size_t top) {
  const DiffResult& d = *r.diff;
  const uint64_t sample_rate = r.analysis->heap().sample_rate();
  int64_t grown = 0;
  uint64_t before = 0, after = 0;
  for (const DiffSite& s : d.sites) {
    grown += s.bytes;
    before += s.before_bytes;
    after += s.after_bytes;
  }
  *out += "\nlive heap " + std::string(grown < 0 ? "shrank" : "grew") + " by " +
          HumanBytes(grown < 0 ? -static_cast<uint64_t>(grown) : grown) + " from " +
          (d.across_traces ? "base " : "") + d.from + " to " + d.to +
          " (changed stacks: " + HumanBytes(before) + " -> " + HumanBytes(after) + ", " +
          std::to_string(d.sites.size()) + " call stacks)\n";
  if (d.across_traces && (d.base_sample_rate != 0 || sample_rate != 0)) {
    // Each side is scaled by its own sample's weights.
    *out += "  (base " +
            (d.base_sample_rate != 0 ? SamplingNotice(d.base_sample_rate) : std::string("exact")) +
            "; this trace " +
            (sample_rate != 0 ? SamplingNotice(sample_rate) : std::string("exact")) + ")\n";
  }
  const size_t shown = Shown(top, d.sites.size());
  for (size_t i = 0; i < shown; ++i) {
    const DiffSite& s = d.sites[i];
    *out += "\n  #" + std::to_string(i + 1) + "  " + Signed(s.bytes) + " (" +
            (s.count < 0 ? "" : "+") + std::to_string(s.count) + " blocks; " +
            HumanBytes(s.before_bytes) + " -> " + HumanBytes(s.after_bytes) + "), allocated at:\n";
    AppendFrames(out, s.stack);
  }
  AppendMore(out, shown, d.sites.size(), "call stacks");
}

void AppendMismatches(std::string* out, const Report& r, size_t top) {
  const std::vector<Mismatch> all = r.mismatches->Mismatches();
  *out += "\n" + std::to_string(r.mismatches->total()) + " mismatched frees (" +
          std::to_string(all.size()) + " distinct)\n";
  const SymbolTable& sym = r.analysis->symbols();
  const size_t shown = Shown(top, all.size());
  bool free_stacks_missing = false;
  for (size_t i = 0; i < shown; ++i) {
    const Mismatch& m = all[i];
    const std::string times = std::to_string(m.count) + "x ";
    std::string head;
    switch (m.kind) {
      case MismatchKind::kFamily:
        head = times + "memory from " + format::ApiName(m.alloc_api) + " released by " +
               format::ApiName(m.free_api);
        break;
      case MismatchKind::kSize:
        head = times + format::ApiName(m.free_api) + " named size " + std::to_string(m.freed_size) +
               " for a block of " + std::to_string(m.bytes / m.count) + " bytes";
        break;
      case MismatchKind::kUnknown:
        head = times + format::ApiName(m.free_api) + " of " + Hex(m.address) +
               ", an address never allocated in the trace";
        break;
      case MismatchKind::kDoubleFree:
        head = times + "double free by " + std::string(format::ApiName(m.free_api));
        break;
    }
    *out += "\n  #" + std::to_string(i + 1) + "  " + head + "\n";
    if (m.kind != MismatchKind::kUnknown) {
      *out += "    allocated by " + std::string(format::ApiName(m.alloc_api)) + " at:\n";
      if (m.alloc_stack == 0) {
        *out += "      (not known)\n";
      } else {
        AppendFrames(out, sym.Frames(m.alloc_stack));
      }
    }
    if (m.kind == MismatchKind::kDoubleFree && m.first_free_stack != 0) {
      *out += "    first freed at:\n";
      AppendFrames(out, sym.Frames(m.first_free_stack));
    }
    *out += "    freed at:\n";
    if (m.free_stack == 0) {
      *out += "      (not recorded)\n";
      free_stacks_missing = true;
    } else {
      AppendFrames(out, sym.Frames(m.free_stack));
    }
  }
  AppendMore(out, shown, all.size(), "mismatches");
  if (free_stacks_missing) {
    *out += "\n  (record with heaprec --free-stacks to see where blocks were freed)\n";
  }
}

// "pid 12, exited 11; started by pid 10, trace heaprec.sh.10.zst".
std::string ProcessWords(const format::ProcessInfo& p,
                         const std::optional<format::EndRecord>& end) {
  std::string words = "pid " + std::to_string(p.pid);
  if (end) {
    const std::string exit = ExitWords(end->exit_status, end->replaced_by_exec);
    words += ", " + (exit == "unknown" ? "exit unknown" : exit);
  }
  if (p.ppid != 0) words += "; started by pid " + std::to_string(p.ppid);
  if (!p.parent_trace.empty()) words += ", trace " + p.parent_trace;
  return words;
}

// The line under the summary of a recording that does not cover the
// process's whole life (live_heap.h, RecordedWholeLife).
std::string RecordedPartText(const Analysis& a) {
  size_t switches = 0;
  for (const format::Marker& m : a.markers()) switches += format::IsRecordingSwitch(m.label);
  bool attached = false;
  for (const format::Marker& m : a.markers()) attached |= m.label == format::kAttachLabel;
  std::string how =
      a.process() && !a.process()->from_start
          ? (attached ? "heaprec -p attached to the running process" : "started after the process")
          : "";
  if (!a.markers().empty() && a.markers().back().label == format::kDetachLabel) {
    how += ", then detached while it ran on";
  }
  if (switches != 0) {
    how += std::string(how.empty() ? "" : ", ") + "switched " + std::to_string(switches) +
           (switches == 1 ? " time" : " times");
  }
  return "recorded: part of the run (" + how + "); freed, allocated before recording: " +
         std::to_string(a.heap().freed_before_recording()) +
         " (not leaks, not mismatches; leaks and peak count what was allocated while "
         "recording)\n";
}

// One line: whose recording this is and what it does not hold.
std::string ForeignWarning(const TraceInfo& t) {
  std::string out = "warning: a " + t.recorded_by + " recording; it holds no ";
  for (size_t i = 0; i < t.lacks.size(); ++i) out += (i == 0 ? "" : ", no ") + t.lacks[i];
  return out + "\n";
}

}  // namespace

std::string TextReport(const Report& r, const ReportOptions& o) {
  const Analysis& a = *r.analysis;
  const SummaryAnalyzer& s = *r.summary;
  std::string out;
  out += "trace " + r.trace.path + ": " + a.CommandLine();
  if (a.process()) out += " (" + ProcessWords(*a.process(), a.end()) + ")";
  out += r.trace.truncated ? " [truncated]\n" : "\n";
  if (a.heap().sampled()) out += SamplingNotice(a.heap().sample_rate()) + "\n";
  if (a.stop()) {
    const MomentWatch& w = *a.stop();
    out += "as of " + w.moment().text;
    out += w.reached()
               ? " (" + Seconds(w.time_ns()) + ", before seq " + std::to_string(w.seq()) + ")\n"
               : " (not reached: the whole trace)\n";
  }
  if (!r.trace.recorded_by.empty()) out += ForeignWarning(r.trace);
  for (const std::string& note : r.notes) out += "note: " + note + "\n";
  for (const RecordingLoss& loss : RecordingLosses(a.end())) {
    if (loss.value != 0) out += "warning: " + LossSentence(loss) + "\n";
  }

  const bool table = !o.overview;
  const size_t top = o.overview && o.top == 10 ? 3 : o.top;
  if ((o.hot || o.overview) && r.hot) AppendHot(&out, r, table, top);
  if ((o.temporaries || o.overview) && r.hot) AppendTemporaries(&out, r, table, top, o.temporaries);
  if ((o.peak || o.overview) && r.peak) AppendPeak(&out, r, table, top);
  if ((o.leaks || o.overview) && r.leak_report) AppendLeaks(&out, r, o, table, top);
  if (o.histogram && r.histogram) AppendHistogram(&out, r);
  if (r.diff) AppendDiff(&out, r, top);
  if (o.mismatches && r.mismatches) AppendMismatches(&out, r, top);

  out += "\nsummary: " + std::to_string(s.allocations()) + " allocations (" +
         HumanBytes(s.bytes_allocated()) + "), " + std::to_string(s.frees()) + " frees, " +
         std::to_string(s.temporaries()) + " temporaries, peak " + HumanBytes(s.peak_bytes()) +
         ", " + (a.stopped() ? "live then " : "not freed ") + HumanBytes(a.heap().live_bytes()) +
         " in " + std::to_string(a.heap().live_blocks()) + " blocks";
  if (r.leak_report && r.leak_report->no_scan.empty()) {
    const KindTotals& lost = r.leak_report->of(format::LeakKind::kDefinite);
    out += " (definitely lost " + HumanBytes(lost.bytes) + " in " + std::to_string(lost.blocks) +
           " blocks)";
  }
  out += ", " + Seconds(s.duration_ns()) + "\n";
  if (!a.heap().RecordedWholeLife()) out += RecordedPartText(a);
  out += RssText(a.rss(), r.trace.version);
  const std::string missing = MissingSymbolsText(r.missing_symbols);
  if (!missing.empty()) out += "symbols: " + missing + "\n";
  return out;
}

}  // namespace heaprec::analyzers
