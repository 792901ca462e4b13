// heapreplay's drawn outputs (outputs.h).
#include "heapreplay/outputs.h"

#include <cstdio>
#include <fstream>

#include "analyzers/flamegraph.h"
#include "analyzers/folded.h"
#include "analyzers/leaks.h"
#include "analyzers/pprof.h"
#include "analyzers/sampling_notice.h"

namespace heaprec::heapreplay {

using analyzers::Metric;
using analyzers::Site;

std::vector<Site> DrawnSites(const Options& o, const analyzers::Report& r, std::string* title) {
  const analyzers::ReportOptions& w = o.report;
  const analyzers::Analysis& a = *r.analysis;
  const bool bytes = o.metric == Metric::kBytes;
  const std::string live = (bytes ? "Bytes live at " : "Blocks live at ") + a.LiveAt();
  if (w.leaks) {
    // Before the end a block not freed yet is live, not leaked.
    if (!a.stopped()) {
      *title = bytes ? "Leaked bytes" : "Leaked blocks";
    } else if (r.leak_report->no_scan.empty()) {
      *title = live + " (" + w.leak_kinds.ToString() + ")";
    } else {
      *title = live;
    }
    return r.leaks;
  }
  if (w.peak) {
    *title = bytes ? "Bytes live at the peak" : "Blocks live at the peak";
    return r.peak->Sites();
  }
  if (w.temporaries) {
    *title = bytes ? "Bytes in temporary allocations" : "Temporary allocations";
    return r.hot->TemporarySites();
  }
  if (!o.at.empty() && !w.hot) {
    *title = live;
    return analyzers::LeakSites(a.heap());
  }
  *title = bytes ? "Allocated bytes" : "Allocation calls";
  return r.hot->HotSites();
}

std::string Folded(const Options& o, const analyzers::Report& r) {
  std::string title;
  return analyzers::FoldedStacks(DrawnSites(o, r, &title), o.metric, r.analysis->symbols());
}

bool WriteTextFile(const std::string& path, const std::string& text, std::string* error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    *error = path + ": cannot write the file";
    return false;
  }
  return true;
}

bool WriteFiles(const Options& o, const analyzers::Report& r, std::string* error) {
  const analyzers::Analysis& a = *r.analysis;
  if (!o.flamegraph.empty()) {
    std::string title;
    const std::vector<Site> sites = DrawnSites(o, r, &title);
    analyzers::FlameGraphOptions f;
    f.title = title;
    f.subtitle = a.CommandLine() + " (" + r.trace.path + ")";
    if (a.heap().sampled()) f.subtitle += "; " + analyzers::SamplingNotice(a.heap().sample_rate());
    f.unit = o.metric == Metric::kBytes ? "bytes" : "allocations";
    if (!WriteTextFile(o.flamegraph, analyzers::FlameGraphSvg(sites, o.metric, a.symbols(), f),
                       error)) {
      return false;
    }
  }
  return o.pprof.empty() || WritePprofFile(o, r, o.pprof, error);
}

bool WritePprofFile(const Options& o, const analyzers::Report& r, const std::string& path,
                    std::string* error) {
  const analyzers::Analysis& a = *r.analysis;
  analyzers::PprofInput in;
  in.allocated = r.hot->HotSites();
  // inuse: the peak's live set with --peak, else every block live at the
  // end or --at (whatever leak kinds are shown).
  const bool peak = o.report.peak && r.peak != nullptr;
  in.inuse = peak ? r.peak->Sites() : analyzers::LeakSites(a.heap());
  if (a.process()) in.time_nanos = static_cast<int64_t>(a.process()->start_realtime_ns);
  in.duration_nanos = static_cast<int64_t>(r.summary->duration_ns());
  in.comments.push_back(a.CommandLine());
  if (a.heap().sampled()) in.comments.push_back(analyzers::SamplingNotice(a.heap().sample_rate()));
  in.comments.push_back("recorded by heaprec; inuse = live at " +
                        (peak ? "the peak (" + std::to_string(r.peak->peak_bytes()) + " bytes at " +
                                    std::to_string(r.peak->peak_time_ns()) + " ns, seq " +
                                    std::to_string(r.peak->peak_seq()) + ")"
                              : a.LiveAt()));
  return analyzers::WritePprof(path, in, a.symbols(), error);
}

}  // namespace heaprec::heapreplay
