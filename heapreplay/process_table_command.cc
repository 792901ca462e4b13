// The process table of several traces (process_table_command.h).
#include "heapreplay/process_table_command.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "analyzers/analysis.h"
#include "analyzers/process_table.h"
#include "analyzers/sampling_notice.h"
#include "analyzers/summary.h"
#include "format/any_trace_reader.h"

namespace heaprec::heapreplay {
namespace {

bool IsFolder(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The *.zst regular files directly in folder, sorted by name.
bool TracesIn(const std::string& folder, std::vector<std::string>* traces, std::string* error) {
  DIR* dir = opendir(folder.c_str());
  if (dir == nullptr) {
    *error = folder + ": cannot read the folder";
    return false;
  }
  std::vector<std::string> found;
  const std::string prefix = folder.back() == '/' ? folder : folder + "/";
  while (const dirent* d = readdir(dir)) {
    const std::string name = d->d_name;
    if (name.size() <= 4 || name.compare(name.size() - 4, 4, ".zst") != 0) continue;
    struct stat st;
    if (stat((prefix + name).c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      found.push_back(prefix + name);
    }
  }
  closedir(dir);
  if (found.empty()) {
    *error = folder + ": no traces (*.zst) in the folder";
    return false;
  }
  std::sort(found.begin(), found.end());
  traces->insert(traces->end(), found.begin(), found.end());
  return true;
}

// What the table needs of one trace, from a summary pass.
bool RowOf(const std::string& path, analyzers::ProcessRow* row, std::string* error) {
  analyzers::Analysis a;
  analyzers::SummaryAnalyzer summary;
  a.Add(&summary);
  std::optional<format::HeaptrackFacts> heaptrack;
  const format::ReadResult r = format::ReadAnyTraceFile(path, a, &heaptrack);
  if (r.status == format::ReadResult::kError) {
    *error = r.message;
    return false;
  }
  const bool truncated = r.status == format::ReadResult::kTruncated;
  if (truncated) std::fprintf(stderr, "heapreplay: warning: %s\n", r.message.c_str());
  *row = ProcessRowOf(path, truncated, a, summary);
  return true;
}

// Options that need one trace (an analysis, an output file, a moment).
std::string OneTraceOption(const Options& o) {
  if (!o.report.overview || o.diff) return "an analysis";
  if (o.folded || !o.flamegraph.empty() || !o.pprof.empty() || !o.html.empty() ||
      !o.exports.empty()) {
    return "an output other than --json";
  }
  if (!o.at.empty()) return "--at";
  if (o.bench) return "--bench";
  if (!o.suppressions.empty() || o.error_exitcode != 0) return "the leak check";
  return "";
}

}  // namespace

analyzers::ProcessRow ProcessRowOf(const std::string& path, bool truncated,
                                   const analyzers::Analysis& a,
                                   const analyzers::SummaryAnalyzer& summary) {
  analyzers::ProcessRow row;
  row.path = path;
  row.truncated = truncated;
  if (a.process()) row.process = *a.process();
  if (a.end()) {
    row.exit_status = a.end()->exit_status;
    row.replaced_by_exec = a.end()->replaced_by_exec;
  }
  row.allocations = summary.allocations();
  row.peak_bytes = summary.peak_bytes();
  row.leaked_bytes = a.heap().live_bytes();
  return row;
}

bool ExpandTraces(const std::vector<std::string>& args, std::vector<std::string>* traces,
                  std::string* error) {
  for (const std::string& t : args) {
    if (!IsFolder(t)) {
      traces->push_back(t);
    } else if (!TracesIn(t, traces, error)) {
      return false;
    }
  }
  return true;
}

bool WantsProcessTable(const Options& o) {
  return o.traces.size() > 1 || (o.traces.size() == 1 && IsFolder(o.traces[0]));
}

int RunProcessTable(const Options& o) {
  if (const std::string one = OneTraceOption(o); !one.empty() && o.traces.size() == 1) {
    // A folder where a trace was expected: the file's error, as before.
    std::fprintf(stderr,
                 "heapreplay: %s: cannot open: is a directory (%s takes one trace; a folder "
                 "alone gives the process table)\n",
                 o.traces[0].c_str(), one.c_str());
    return 1;
  } else if (!one.empty()) {
    std::fprintf(stderr,
                 "heapreplay: %s takes one trace; several traces or a folder give the process "
                 "table only (see heapreplay --help)\n",
                 one.c_str());
    return 2;
  }
  std::string error;
  std::vector<std::string> traces;
  if (!ExpandTraces(o.traces, &traces, &error)) {
    std::fprintf(stderr, "heapreplay: %s\n", error.c_str());
    return 1;
  }
  std::vector<analyzers::ProcessRow> rows;
  for (const std::string& t : traces) {
    analyzers::ProcessRow row;
    if (!RowOf(t, &row, &error)) {
      std::fprintf(stderr, "heapreplay: %s\n", error.c_str());
      return 1;
    }
    rows.push_back(std::move(row));
  }
  analyzers::SortLargestFirst(&rows);
  if (o.json) {
    std::printf("%s\n", analyzers::ProcessesJson(rows).dump(2).c_str());
  } else {
    std::printf("%zu traces, largest peak first:\n%s", rows.size(),
                analyzers::ProcessTableText(rows, analyzers::kScreenfulRows, "").c_str());
    for (const analyzers::ProcessRow& r : rows) {
      if (r.process.sample_rate == 0) continue;
      std::printf("%s\n", analyzers::SamplingNotice(r.process.sample_rate).c_str());
      break;
    }
  }
  return 0;
}

}  // namespace heaprec::heapreplay
