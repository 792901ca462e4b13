// The text report (report.h): a header, one section per analysis (a
// headline, a pprof-style top table by function, then the top call stacks),
// and the summary line.
#include <cinttypes>
#include <cstdio>

#include "analyzers/human_bytes.h"
#include "analyzers/report.h"
#include "analyzers/top_table.h"

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

void AppendFrames(std::string* out, const std::vector<Frame>& frames) {
  if (frames.empty()) *out += "      (no stack recorded)\n";
  for (const Frame& f : frames) {
    *out += "      ";
    *out += f.inlined ? "(inlined) " : "";
    *out += f.function;
    if (!f.file.empty()) *out += "  " + f.file + ":" + std::to_string(f.line);
    if (!f.module.empty()) *out += "  [" + f.module + "]";
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

void AppendLeaks(std::string* out, const Report& r, bool table, size_t top) {
  const uint64_t total = r.analysis->heap().live_bytes();
  *out += "\nleaked " + HumanBytes(total) + " in " +
          std::to_string(r.analysis->heap().blocks().size()) + " blocks from " +
          std::to_string(r.leaks.size()) + " call stacks\n";
  AppendSites(out, r, r.leaks, Metric::kBytes, total, table, top, [&](const Site& s) {
    return HumanBytes(s.bytes) + " (" + Percent(s.bytes, total) + ") in " +
           std::to_string(s.count) + " blocks, allocated at:";
  });
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

void AppendTemporaries(std::string* out, const Report& r, bool table, size_t top) {
  const std::vector<Site> sites = r.hot->TemporarySites();
  const uint64_t total = r.hot->temporaries();
  *out += "\n" + std::to_string(total) + " temporaries (" +
          Percent(total, r.summary->allocations()) + " of " +
          std::to_string(r.summary->allocations()) + " allocations) from " +
          std::to_string(sites.size()) + " call stacks\n";
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

}  // namespace

std::string TextReport(const Report& r, const ReportOptions& o) {
  const Analysis& a = *r.analysis;
  const SummaryAnalyzer& s = *r.summary;
  std::string out;
  out += "trace " + r.trace.path + ": " + a.CommandLine();
  if (a.process()) out += " (pid " + std::to_string(a.process()->pid) + ")";
  out += r.trace.truncated ? " [truncated]\n" : "\n";
  if (a.stop()) {
    const MomentWatch& w = *a.stop();
    out += "as of " + w.moment().text;
    out += w.reached()
               ? " (" + Seconds(w.time_ns()) + ", before seq " + std::to_string(w.seq()) + ")\n"
               : " (not reached: the whole trace)\n";
  }
  for (const std::string& note : r.notes) out += "note: " + note + "\n";

  const bool table = !o.overview;
  const size_t top = o.overview && o.top == 10 ? 3 : o.top;
  if ((o.hot || o.overview) && r.hot) AppendHot(&out, r, table, top);
  if ((o.temporaries || o.overview) && r.hot) AppendTemporaries(&out, r, table, top);
  if ((o.peak || o.overview) && r.peak) AppendPeak(&out, r, table, top);
  if (o.leaks || o.overview) AppendLeaks(&out, r, table, top);
  if (o.histogram && r.histogram) AppendHistogram(&out, r);
  if (r.diff) AppendDiff(&out, r, top);
  if (o.mismatches && r.mismatches) AppendMismatches(&out, r, top);

  out += "\nsummary: " + std::to_string(s.allocations()) + " allocations (" +
         HumanBytes(s.bytes_allocated()) + "), " + std::to_string(s.frees()) + " frees, " +
         std::to_string(s.temporaries()) + " temporaries, peak " + HumanBytes(s.peak_bytes()) +
         ", leaked " + HumanBytes(a.heap().live_bytes()) + " in " +
         std::to_string(a.heap().blocks().size()) + " blocks, " + Seconds(s.duration_ns()) + "\n";
  return out;
}

}  // namespace heaprec::analyzers
