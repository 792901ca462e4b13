// Reporters for heapreplay: the summary and leak sites as text people read
// and as the JSON object of DESIGN.md's contract ("trace", "summary",
// "leaks"; SITE and FRAME as specified there).
// Pure functions of analysis results; allocate; not thread-safe per input.
#ifndef HEAPREC_ANALYZERS_REPORT_H_
#define HEAPREC_ANALYZERS_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analyzers/human_bytes.h"
#include "analyzers/leaks.h"
#include "analyzers/summary.h"
#include "analyzers/symbol_table.h"
#include "format/format_version.h"

namespace heaprec::analyzers {

struct TraceInfo {
  std::string path;
  format::FormatVersion version;
  bool truncated = false;
};

struct ReportOptions {
  size_t top = 10;     // sites shown (text); 0 = all
  bool leaks = false;  // include the leak report
};

std::string TextReport(const TraceInfo& trace, const SummaryAnalyzer& summary,
                       const std::vector<Site>& leak_sites, const SymbolTable& symbols,
                       const ReportOptions& options);

std::string JsonReport(const TraceInfo& trace, const SummaryAnalyzer& summary,
                       const std::vector<Site>& leak_sites, const SymbolTable& symbols,
                       const ReportOptions& options);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_REPORT_H_
