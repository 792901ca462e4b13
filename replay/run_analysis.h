// heapreplay's pass: reads the trace through the plan's analyzers (and the
// --base trace through its own), checks that the moments named were reached,
// names what the traces hold no symbols for, computes --diff and finishes
// the page's range profile. The Report points into the plan.
// False + one line naming the file in *error for anything unreadable (exit
// 1); a truncated trace warns on stderr and is analysed up to the cut.
// Reads files; allocates; main thread only.
#ifndef HEAPREC_REPLAY_RUN_ANALYSIS_H_
#define HEAPREC_REPLAY_RUN_ANALYSIS_H_

#include <string>

#include "analyzers/report.h"
#include "replay/analysis_plan.h"
#include "replay/options.h"

namespace heaprec::replay {

bool RunAnalysis(const Options& o, AnalysisPlan* plan, analyzers::Report* report,
                 std::string* error);

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_RUN_ANALYSIS_H_
