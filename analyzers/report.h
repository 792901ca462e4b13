// Reporters for heapreplay: what one pass computed (Report), as text people
// read (pprof-style top tables by function, then call stacks with function,
// file:line and module) and as the JSON object of docs/DESIGN.md's contract
// ("trace", "summary", "leaks", "peak", "temporaries", "hot"; SITE and FRAME
// as specified there; heaprec adds "histogram", "timeline", "diff",
// "mismatches", "at", "markers" and "symbols").
// Pure functions of the results; allocate.
#ifndef HEAPREC_ANALYZERS_REPORT_H_
#define HEAPREC_ANALYZERS_REPORT_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analyzers/analysis.h"
#include "analyzers/diff.h"
#include "analyzers/histogram.h"
#include "analyzers/hot.h"
#include "analyzers/json_text.h"
#include "analyzers/leak_report.h"
#include "analyzers/lifetimes.h"
#include "analyzers/mismatches.h"
#include "analyzers/missing_symbols.h"
#include "analyzers/peak.h"
#include "analyzers/site.h"
#include "analyzers/summary.h"
#include "analyzers/timeline.h"
#include "format/format_version.h"

namespace heaprec::analyzers {

struct TraceInfo {
  std::string path;
  format::FormatVersion version;
  bool truncated = false;
  // A recording another profiler wrote ("heaptrack 1.4.0 (file format 3)"),
  // and what it does not hold, one phrase each: a warning line in text,
  // trace.recorded_by and trace.lacks in JSON. Empty for heaprec's traces.
  std::string recorded_by;
  std::vector<std::string> lacks;
};

struct DiffResult {
  std::string from;  // the earlier moment's text, or the base trace's path
  std::string to;    // the later moment's text ("end" by default)
  bool across_traces = false;
  // Across traces: the base trace's ProcessInfo::sample_rate (0: exact).
  // Each side is scaled by its own weights.
  uint64_t base_sample_rate = 0;
  std::vector<DiffSite> sites;
};

// What one heapreplay pass computed. Pointers are null for analyses not run.
struct Report {
  TraceInfo trace;
  const Analysis* analysis = nullptr;        // required
  const SummaryAnalyzer* summary = nullptr;  // required
  // Live at the end (or --at), by bytes: the sites of the kinds shown
  // (ReportOptions::leak_kinds; every site when the kinds are unknown),
  // suppressed ones left out. What --folded, --flamegraph and --pprof draw.
  std::vector<Site> leaks;
  std::optional<LeakReport> leak_report;  // the kinds (leak_report.h)
  const PeakAnalyzer* peak = nullptr;
  const HotAnalyzer* hot = nullptr;  // hot sites and temporaries
  const HistogramAnalyzer* histogram = nullptr;
  const TimelineAnalyzer* timeline = nullptr;
  // Block lifetimes per site: each hot and temporaries site's "lifetimes".
  const LifetimeAnalyzer* lifetimes = nullptr;
  const MismatchAnalyzer* mismatches = nullptr;
  std::optional<DiffResult> diff;
  std::vector<std::string> notes;  // shown under the header, e.g. modules without symbols
  // Modules that left frames unnamed (FindMissingSymbols): a line at the end
  // of the text, "symbols" in JSON.
  std::vector<MissingSymbols> missing_symbols;
};

struct ReportOptions {
  size_t top = 10;  // sites (and table rows) shown in text; 0 = all
  bool leaks = false, peak = false, temporaries = false, hot = false;
  bool histogram = false, timeline = false, mismatches = false;
  // --leak-kinds / --show-leak-kinds: the kinds whose sites are listed and
  // drawn (valgrind's default: definite,possible).
  LeakKindSet leak_kinds = DefaultLeakKinds();
  // No analysis named: a few top sites of each of hot, temporaries, peak,
  // leaks in text; the summary alone in JSON.
  bool overview = false;
};

std::string TextReport(const Report& r, const ReportOptions& options);
// The "summary" object of the JSON report (docs/DESIGN.md), also the HTML page's.
nlohmann::json SummaryJson(const Analysis& a, const SummaryAnalyzer& s);
// leaks.kinds of the JSON report (docs/DESIGN.md): bytes and blocks per kind,
// suppressed and unknown, also the HTML page's.
nlohmann::json LeakKindsJson(const LeakReport& l);
// The JSON report: an object whose lists of sites (and mismatches) are
// placeholders, and what writes them one element at a time (json_text.h),
// so that a report of many sites is never built whole. For a caller that
// adds keys ("bench") before writing it once. Refers to r: valid while r is.
struct JsonReportDoc {
  nlohmann::json value;
  JsonText::Fills fills;
};
JsonReportDoc JsonReportValue(const Report& r, const ReportOptions& options);
// Writes doc as nlohmann's dump(2) writes the whole value, and a final
// newline, then flushes.
void WriteJsonReport(const JsonReportDoc& doc, JsonText* out);
std::string JsonReportText(const JsonReportDoc& doc);
// JsonReportText(JsonReportValue(r, options)).
std::string JsonReport(const Report& r, const ReportOptions& options);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_REPORT_H_
