// heapreplay --export FORMAT FILE: the one table of the formats written to
// a file for other people's tools. A row is the format's name, its line in
// the help, what the pass must run for it, and the function that writes it.
// To add a format, add a row (and, if it needs an analyzer of its own, a
// flag in ExportNeeds and the analyzer in ExportAnalyzers).
// The table does not know Options: what pprof and folded draw is decided by
// heapreplay's outputs (outputs.h) and handed in through ExportJob.
// Allocates; main thread only.
#ifndef HEAPREC_HEAPREPLAY_EXPORT_FORMATS_H_
#define HEAPREC_HEAPREPLAY_EXPORT_FORMATS_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analyzers/dhat.h"
#include "analyzers/heaptrack_export.h"
#include "analyzers/massif.h"
#include "analyzers/peak.h"
#include "analyzers/report.h"

namespace heaprec::heapreplay {

// What the pass must run for a format, besides the summary and live heap.
struct ExportNeeds {
  bool peak = false;       // analyzers::PeakAnalyzer
  bool hot = false;        // analyzers::HotAnalyzer (pprof's alloc samples)
  bool massif = false;     // ExportAnalyzers::massif
  bool dhat = false;       // ExportAnalyzers::dhat
  bool heaptrack = false;  // ExportAnalyzers::heaptrack
};

// The analyzers only exports use, added to the pass by AnalysisPlan when a
// format needs them (after the PeakAnalyzer they read).
struct ExportAnalyzers {
  explicit ExportAnalyzers(const analyzers::PeakAnalyzer* peak) : massif(peak), dhat(peak) {}
  analyzers::MassifAnalyzer massif;
  analyzers::DhatAnalyzer dhat;
  std::unique_ptr<analyzers::HeaptrackExport> heaptrack;  // made when needed
};

// What a writer is given.
struct ExportJob {
  const analyzers::Report* report = nullptr;
  const ExportAnalyzers* analyzers = nullptr;
  std::string trace;  // the trace's path, for the files' descriptions
  // The drawn outputs as heapreplay's options choose them (outputs.h).
  std::function<std::string()> folded;
  std::function<bool(const std::string& file, std::string* error)> write_pprof;
};

struct ExportFormat {
  const char* name;
  const char* help;  // a few words for heapreplay --help
  ExportNeeds needs;
  // Writes `file`; false + one line naming it in *error.
  bool (*write)(const ExportJob& job, const std::string& file, std::string* error);
};

// Every format, in the order the help lists them.
const std::vector<ExportFormat>& ExportFormats();
// The row named `name`, or nullptr.
const ExportFormat* FindExportFormat(std::string_view name);
// "massif, dhat, pprof, folded".
std::string ExportFormatNames();
// One line per format for the help: "  massif   valgrind's massif ...".
std::string ExportFormatsHelp();

}  // namespace heaprec::heapreplay

#endif  // HEAPREC_HEAPREPLAY_EXPORT_FORMATS_H_
