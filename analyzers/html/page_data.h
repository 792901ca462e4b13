// PageData: the JSON object a heapreplay --html page reads (DATA.md defines
// every field): the trace and its summary, warnings, the stacks as a call
// tree, the heap over time in buckets, per stack and bucket totals (from a
// RangeProfile), what another trace (--base) held per stack, and the
// allocator comparison when there is one.
// Pure function of the analyses; allocates. Called by heapreplay after its
// pass (and RangeProfile::Finish).
#ifndef HEAPREC_ANALYZERS_HTML_PAGE_DATA_H_
#define HEAPREC_ANALYZERS_HTML_PAGE_DATA_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analyzers/analysis.h"
#include "analyzers/hot.h"
#include "analyzers/leak_report.h"
#include "analyzers/lifetimes.h"
#include "analyzers/missing_symbols.h"
#include "analyzers/peak.h"
#include "analyzers/range_profile.h"
#include "analyzers/report.h"
#include "analyzers/site.h"
#include "analyzers/summary.h"

namespace heaprec::analyzers::html {

// The other trace of --base: its whole-trace totals per stack.
struct PageBase {
  std::string path;
  const Analysis* analysis = nullptr;
  const SummaryAnalyzer* summary = nullptr;
  const PeakAnalyzer* peak = nullptr;
  const HotAnalyzer* hot = nullptr;            // calls and temporaries
  const Suppressions* suppressions = nullptr;  // applied to its leaks, as to this trace's
};

struct PageInputs {
  TraceInfo trace;
  const Analysis* analysis = nullptr;  // the pass, ended (not stopped early)
  const SummaryAnalyzer* summary = nullptr;
  const RangeProfile* range = nullptr;          // Finish()ed (with ShownBlocks(*leaks, leak_kinds))
  const LeakReport* leaks = nullptr;            // the kinds at the end (null: built here)
  LeakKindSet leak_kinds = DefaultLeakKinds();  // the kinds the leaks views show
  std::vector<std::string> notes;               // e.g. modules without symbols
  std::vector<MissingSymbols> missing_symbols;  // "symbols" and a warning
  const PageBase* base = nullptr;               // null without --base
  nlohmann::json bench;                         // DATA.md's BENCH, or null
  const LifetimeAnalyzer* lifetimes = nullptr;  // "lifetimes"; null: none
};

nlohmann::json PageData(const PageInputs& in);

// One sentence per thing the reader should know before trusting the page:
// a truncated trace, the notes, the modules that left frames unnamed (and
// how to name them), and the recorder's counters of what it could
// not record (dropped events, lost stacks, ...).
std::vector<std::string> PageWarnings(const PageInputs& in);

}  // namespace heaprec::analyzers::html

#endif  // HEAPREC_ANALYZERS_HTML_PAGE_DATA_H_
