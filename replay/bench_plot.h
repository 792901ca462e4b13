// BenchPlotSvg: --plot's drawing. Live bytes requested (from the compiled
// trace) and each allocator's RSS above its baseline (sampled by its first
// worker run, rss_sampler.h) against the operation index, as one SVG.
// Pure function of the results; allocates.
#ifndef HEAPREC_REPLAY_BENCH_PLOT_H_
#define HEAPREC_REPLAY_BENCH_PLOT_H_

#include <string>
#include <vector>

#include "replay/bench_report.h"
#include "replay/trace_compiler.h"

namespace heaprec::replay {

std::string BenchPlotSvg(const BenchResult& r, const std::vector<CurvePoint>& live);

// Adds the curves to a "bench" JSON object (BenchJson): "live_curve" and each
// allocator's "rss_curve" (from its first run, when sampled), as
// [[ops, bytes], ...] (analyzers/html/DATA.md).
void AddCurvesJson(const BenchResult& r, const std::vector<CurvePoint>& live,
                   nlohmann::json* bench);

// "ops:bytes,ops:bytes" (bench_sample.h's curve) as points; bad items skipped.
std::vector<CurvePoint> ParseCurve(const std::string& text);

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_BENCH_PLOT_H_
