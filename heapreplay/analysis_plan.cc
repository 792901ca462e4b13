// heapreplay's analyzers for one pass (analysis_plan.h).
#include "heapreplay/analysis_plan.h"

#include <optional>

namespace heaprec::heapreplay {
namespace {

using analyzers::Moment;

// An empty text is the end (the default); false + "--at: ..." otherwise.
bool ParseMomentOption(const std::string& text, const char* option, Moment* m, std::string* error) {
  if (text.empty()) return true;
  const std::optional<Moment> parsed = analyzers::ParseMoment(text, error);
  if (!parsed) {
    *error = std::string(option) + ": " + *error;
    return false;
  }
  *m = *parsed;
  return true;
}

}  // namespace

std::unique_ptr<AnalysisPlan> AnalysisPlan::Make(const Options& o, std::string* error) {
  Moment at, from, to;
  if (!ParseMomentOption(o.at, "--at", &at, error) ||
      !ParseMomentOption(o.from, "--from", &from, error) ||
      !ParseMomentOption(o.to, "--to", &to, error)) {
    return nullptr;
  }
  return std::make_unique<AnalysisPlan>(o, at, from, to);
}

AnalysisPlan::AnalysisPlan(const Options& o, const Moment& at, const Moment& from, const Moment& to)
    : analysis(at) {
  const analyzers::ReportOptions& want = o.report;
  const bool drawn = o.folded || !o.flamegraph.empty();
  ExportNeeds needs;
  for (const Options::Export& e : o.exports) {
    const ExportFormat* f = FindExportFormat(e.format);  // checked by ParseOptions
    if (f == nullptr) continue;
    needs.peak |= f->needs.peak;
    needs.hot |= f->needs.hot;
    needs.massif |= f->needs.massif;
    needs.dhat |= f->needs.dhat;
    needs.heaptrack |= f->needs.heaptrack;
  }
  peak_run = want.peak || want.overview || needs.peak;
  hot_run = want.hot || want.temporaries || want.overview || !o.pprof.empty() || needs.hot ||
            (drawn && !want.leaks && !want.peak && o.at.empty());
  // Lifetimes show only in the JSON's hot and temporaries sites and on the
  // page; the text report has none, so it does not pay for them.
  lifetimes_run = (o.json && (want.hot || want.temporaries)) || !o.html.empty();
  core = analyzers::CorePass(&summary, peak_run ? &peak : nullptr, hot_run ? &hot : nullptr);
  analysis.Add(&core);
  if (want.histogram) analysis.Add(&histogram);
  if (want.timeline) analysis.Add(&timeline);
  if (lifetimes_run) analysis.Add(&lifetimes);
  if (want.mismatches) analysis.Add(&mismatches);
  if (!o.html.empty()) analysis.Add(&range);
  if (needs.massif) analysis.Add(&exports.massif);
  if (needs.dhat) analysis.Add(&exports.dhat);
  if (needs.heaptrack) {
    exports.heaptrack = std::make_unique<analyzers::HeaptrackExport>(analysis);
    analysis.Add(exports.heaptrack.get());
  }
  if (o.diff) {
    if (o.base.empty()) {
      before = std::make_unique<analyzers::LiveSnapshot>(from);
      analysis.Add(before.get());
    }
    after = std::make_unique<analyzers::LiveSnapshot>(to);
    analysis.Add(after.get());
  }
  if (!o.html.empty()) {
    base.Add(&base_core);
  }
}

}  // namespace heaprec::heapreplay
