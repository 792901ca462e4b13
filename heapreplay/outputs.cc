// heapreplay's drawn outputs (outputs.h).
#include "heapreplay/outputs.h"

#include <cstdio>
#include <fstream>

#include "analyzers/flamegraph.h"
#include "analyzers/folded.h"
#include "analyzers/leaks.h"
#include "analyzers/pprof.h"

namespace heaprec::heapreplay {

using analyzers::Metric;
using analyzers::Site;

std::vector<Site> DrawnSites(const Options& o, const analyzers::Report& r, std::string* title) {
  const analyzers::ReportOptions& w = o.report;
  const bool bytes = o.metric == Metric::kBytes;
  if (w.leaks) {
    *title = bytes ? "Leaked bytes" : "Leaked blocks";
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
    f.unit = o.metric == Metric::kBytes ? "bytes" : "allocations";
    if (!WriteTextFile(o.flamegraph, analyzers::FlameGraphSvg(sites, o.metric, a.symbols(), f),
                       error)) {
      return false;
    }
  }
  if (!o.pprof.empty()) {
    analyzers::PprofInput in;
    in.allocated = r.hot->HotSites();
    in.inuse = r.leaks;
    if (a.process()) in.time_nanos = static_cast<int64_t>(a.process()->start_realtime_ns);
    in.duration_nanos = static_cast<int64_t>(r.summary->duration_ns());
    in.comments.push_back(a.CommandLine());
    in.comments.push_back("recorded by heaprec; inuse = live at " +
                          (a.stop() ? a.stop()->moment().text : std::string("the end")));
    if (!analyzers::WritePprof(o.pprof, in, a.symbols(), error)) return false;
  }
  return true;
}

}  // namespace heaprec::heapreplay
