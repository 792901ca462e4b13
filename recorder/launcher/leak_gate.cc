// The leak check after the run (leak_gate.h).
#include "recorder/launcher/leak_gate.h"

#include <cstdio>

#include "analyzers/analysis.h"
#include "analyzers/leak_check_text.h"
#include "analyzers/summary.h"
#include "format/trace_reader.h"

namespace heaprec::recorder::launcher {

int64_t RunLeakGate(const std::vector<TraceResult>& results, const Options& o,
                    const analyzers::Suppressions& suppressions, std::string* error) {
  if (results.empty()) {
    *error = "no trace written: nothing to check for leaks";
    return -1;
  }
  analyzers::LeakCheckOptions check;
  check.full = o.leak_check == Options::LeakCheck::kFull;
  check.show = o.show_kinds;
  check.errors_for = o.errors_for;
  int64_t errors = 0;
  for (const TraceResult& r : results) {
    analyzers::Analysis a;
    analyzers::SummaryAnalyzer summary;
    a.Add(&summary);
    const format::ReadResult read = format::ReadTraceFile(r.path, a);
    if (read.status == format::ReadResult::kError || read.chunks == 0) {
      *error = read.status == format::ReadResult::kError
                   ? read.message
                   : r.path + ": no complete chunk: nothing to check for leaks";
      return -1;
    }
    const analyzers::LeakReport leaks =
        analyzers::BuildLeakReport(a.heap(), a.LeakScanNow(), a.LeakScanMissing(), a.symbols(),
                                   suppressions.size() == 0 ? nullptr : &suppressions);
    uint64_t counted = 0;
    std::fputs(analyzers::LeakCheckText(a, summary, leaks, check, &counted).c_str(), stderr);
    errors += static_cast<int64_t>(counted);
  }
  return errors;
}

}  // namespace heaprec::recorder::launcher
