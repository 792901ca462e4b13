// heapreplay's last step: the files asked for (--flamegraph, --pprof,
// --html, --export) and the report on stdout, from what the pass computed
// (run_analysis.h). Allocates; writes only the files named on the command
// line; main thread only.
#ifndef HEAPREC_HEAPREPLAY_REPORT_OUTPUT_H_
#define HEAPREC_HEAPREPLAY_REPORT_OUTPUT_H_

#include <nlohmann/json.hpp>
#include <string>

#include "analyzers/report.h"
#include "heapreplay/analysis_plan.h"
#include "heapreplay/options.h"

namespace heaprec::heapreplay {

// The allocator comparison shown with the report (--html with --bench or
// --bench-json): the "bench" object for the JSON report and the page (null:
// none), and the table for the text report (when --bench ran now).
struct BenchShown {
  nlohmann::json json;
  std::string text;
};

// What goes to stdout: the JSON report (with "bench"), else --folded's
// stacks, else --timeline's CSV, else the text report (and the bench table).
std::string StdoutText(const Options& o, const analyzers::Report& report, const BenchShown& bench);

// Writes the files, then prints StdoutText if the options ask for a report
// on stdout (Options::report_to_stdout); the JSON report goes out as it is
// written, never whole in memory (analyzers/json_text.h). False + one line in *error when a
// file cannot be written (then nothing is printed).
bool WriteOutputs(const Options& o, const analyzers::Report& report, const AnalysisPlan& plan,
                  const BenchShown& bench, std::string* error);

}  // namespace heaprec::heapreplay

#endif  // HEAPREC_HEAPREPLAY_REPORT_OUTPUT_H_
