// The --bench command (bench.h).
#include "heapreplay/bench_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "analyzers/analysis.h"
#include "analyzers/human_bytes.h"
#include "analyzers/report.h"
#include "analyzers/summary.h"
#include "format/heaptrack_reader.h"
#include "format/read_ahead.h"
#include "heapreplay/progress_meter.h"
#include "replay/allocators.h"
#include "replay/bench_plot.h"
#include "replay/bench_report.h"
#include "replay/bench_runner.h"
#include "replay/compiled_image.h"
#include "replay/tee_visitor.h"
#include "replay/trace_compiler.h"

namespace heaprec::heapreplay {

using replay::AddCurvesJson;
using replay::AllocatorResult;
using replay::AllocatorSpec;
using replay::BenchJson;
using replay::BenchPlotSvg;
using replay::BenchResult;
using replay::BenchText;
using replay::CompiledTrace;
using replay::MissingLibrary;
using replay::ParseAllocators;
using replay::RunSample;
using replay::RunWorker;
using replay::Summarize;
using replay::TeeVisitor;
using replay::TraceCompiler;
using replay::WriteImage;

namespace {

int Fail(const std::string& line) {
  if (!line.empty()) std::fprintf(stderr, "heapreplay: %s\n", line.c_str());
  return 1;
}

std::string SignedBytes(int64_t b) {
  return (b < 0 ? "-" : "+") + analyzers::HumanBytes(b < 0 ? -static_cast<uint64_t>(b) : b);
}

// The recorded run's RSS gap at the heap's peak (format 3.4) against the
// replay: the allocator whose replay stood least above the live heap at its
// peak (its RSS growth minus the peak live bytes), and how much of the gap
// it would have closed against the reference. The recorded gap also holds
// what no allocator changes (code, stacks, other mappings), so "closed" is
// at most the gap. One line; "" for a trace without RSS samples.
std::string RssGapLine(const analyzers::RssTrack& rss, const BenchResult& r) {
  const std::optional<int64_t> gap = rss.gap_at_heap_peak();
  if (!gap || r.allocators.empty()) return "";
  const double live = static_cast<double>(r.stats.peak_live_bytes);
  auto above = [&](const AllocatorResult& a) {
    return static_cast<int64_t>(a.replay_peak_rss.median - live);
  };
  const AllocatorResult* best = nullptr;
  const AllocatorResult* ref = nullptr;
  for (const AllocatorResult& a : r.allocators) {
    if (a.spec.name == r.reference) ref = &a;
    if (best == nullptr || above(a) < above(*best)) best = &a;
  }
  std::string line = "rss gap: the recorded run's RSS stood " + SignedBytes(*gap) +
                     " above its live heap at the heap's peak; in the replay ";
  if (ref == nullptr || above(*ref) <= above(*best)) {
    return line + "no allocator stood less above it than " + (ref ? ref : best)->spec.name + " (" +
           SignedBytes(above(ref ? *ref : *best)) + ")\n";
  }
  const int64_t closed = std::max<int64_t>(0, std::min(*gap, above(*ref) - above(*best)));
  return line + best->spec.name + " stood least above it (" + SignedBytes(above(*best)) + ", " +
         ref->spec.name + " " + SignedBytes(above(*ref)) + "): it would have closed about " +
         analyzers::HumanBytes(static_cast<uint64_t>(closed)) + " of the gap\n";
}

}  // namespace

// The comparison; *json gets the "bench" object with curves if non-null.
static int Bench(const Options& o, std::string* text, nlohmann::json* json) {
  std::vector<AllocatorSpec> specs;
  std::string error;
  if (!ParseAllocators(o.allocators, &specs, &error)) return Fail(error);
  for (const AllocatorSpec& spec : specs) {
    const std::string missing = MissingLibrary(spec);
    if (!missing.empty()) return Fail(missing);
  }

  if (format::IsHeaptrackFile(o.trace)) {
    return Fail(o.trace +
                ": --bench replays heaprec traces only: a heaptrack recording holds no threads, "
                "no realloc calls and no alignments, so its replay would not be the program's");
  }
  analyzers::Analysis analysis;
  analyzers::SummaryAnalyzer summary;
  analysis.Add(&summary);
  TraceCompiler compiler;
  TeeVisitor tee(&analysis, &compiler);
  format::ReadProgress progress;
  format::ReaderOptions options;
  options.progress = &progress;
  format::ReadResult read;
  {
    const ProgressMeter meter(o.trace, &progress);  // erases its line when the read ends
    read = format::ReadTraceFileAhead(o.trace, tee, options);
  }
  if (read.status == format::ReadResult::kError) return Fail(read.message);
  if (compiler.sampled()) return Fail(TraceCompiler::SampledRefusal(o.trace));
  const bool truncated = read.status == format::ReadResult::kTruncated;
  if (truncated) std::fprintf(stderr, "heapreplay: warning: %s\n", read.message.c_str());
  const CompiledTrace compiled = compiler.Finish();
  const int fd = WriteImage(compiled, &error);
  if (fd < 0) return Fail(o.trace + ": " + error);

  BenchResult result;
  result.trace = o.trace;
  result.stats = compiled.stats;
  result.repeat = o.repeat;
  result.touch = o.touch;
  for (const AllocatorSpec& spec : specs) result.allocators.push_back({spec});
  std::vector<double> null_wall;
  const AllocatorSpec glibc{"glibc", "", "", ""};
  const bool plot = !o.plot.empty();
  const bool curves = plot || o.json || json != nullptr;
  for (int run = 0; run < o.repeat; ++run) {
    RunSample s;
    if (!RunWorker(fd, glibc, o.touch, /*null=*/true, false, &s, &error)) return Fail(error);
    null_wall.push_back(double(s.wall_ns));
    // Start-ups (memory and time) are above the null worker's of this round.
    const uint64_t reference_anon_rss = s.baseline_anon_rss;
    const uint64_t reference_ready_span_ns = s.ready_ns - s.spawn_ns;
    const uint64_t reference_ready_cpu_ns = s.ready_cpu_ns;
    for (AllocatorResult& a : result.allocators) {
      if (!RunWorker(fd, a.spec, o.touch, /*null=*/false, curves && run == 0, &s, &error)) {
        return Fail(error);
      }
      s.reference_anon_rss = reference_anon_rss;
      s.reference_ready_span_ns = reference_ready_span_ns;
      s.reference_ready_cpu_ns = reference_ready_cpu_ns;
      a.runs.push_back(s);
    }
  }
  close(fd);
  result.null_wall_ns = Summarize(null_wall);
  Summarize(&result);
  if (plot) {
    std::FILE* f = std::fopen(o.plot.c_str(), "w");
    const std::string svg = BenchPlotSvg(result, compiled.live_curve);
    if (f == nullptr || std::fwrite(svg.data(), 1, svg.size(), f) != svg.size()) {
      if (f != nullptr) std::fclose(f);
      return Fail(o.plot + ": cannot write the plot");
    }
    std::fclose(f);
  }

  if (json != nullptr) {
    *text = BenchText(result) + RssGapLine(analysis.rss(), result);
    *json = BenchJson(result);
    AddCurvesJson(result, compiled.live_curve, json);
    return 0;
  }
  if (!o.json) {
    std::fputs((BenchText(result) + RssGapLine(analysis.rss(), result)).c_str(), stdout);
    return 0;
  }
  analyzers::Report report;
  report.trace = {o.trace, read.version, truncated};
  report.analysis = &analysis;
  report.summary = &summary;
  analyzers::JsonReportDoc doc = analyzers::JsonReportValue(report, o.report);
  doc.value["bench"] = BenchJson(result);
  AddCurvesJson(result, compiled.live_curve, &doc.value["bench"]);
  analyzers::JsonText out(stdout);
  analyzers::WriteJsonReport(doc, &out);
  return 0;
}

int RunBench(const Options& o) { return Bench(o, nullptr, nullptr); }

int CollectBench(const Options& o, std::string* text, nlohmann::json* json) {
  return Bench(o, text, json);
}

}  // namespace heaprec::heapreplay
