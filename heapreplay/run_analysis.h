// heapreplay's pass: reads the trace through the plan's analyzers (and the
// --base trace through its own), checks that the moments named were reached,
// names what the traces hold no symbols for, computes --diff and finishes
// the page's range profile. The Report points into the plan.
// False + one line naming the file in *error for anything unreadable (exit
// 1); a truncated trace warns on stderr and is analysed up to the cut.
// Reads files; allocates; main thread only.
#ifndef HEAPREC_HEAPREPLAY_RUN_ANALYSIS_H_
#define HEAPREC_HEAPREPLAY_RUN_ANALYSIS_H_

#include <string>

#include "analyzers/report.h"
#include "heapreplay/analysis_plan.h"
#include "heapreplay/options.h"

namespace heaprec::heapreplay {

bool RunAnalysis(const Options& o, AnalysisPlan* plan, analyzers::Report* report,
                 std::string* error);

}  // namespace heaprec::heapreplay

#endif  // HEAPREC_HEAPREPLAY_RUN_ANALYSIS_H_
