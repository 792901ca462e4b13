// ProcessTable: one row per traced process image, the answer for a process
// tree: heaprec's closing lines (from what the launcher wrote) and heapreplay
// given several traces or a folder (from a summary pass over each). Rows are
// listed largest first: by peak live bytes, then allocations, then pid. As
// text (an aligned table, at most max_rows rows and "... and N more") and as
// docs/DESIGN.md's {"processes": [...]}.
// Pure functions; allocate.
#ifndef HEAPREC_ANALYZERS_PROCESS_TABLE_H_
#define HEAPREC_ANALYZERS_PROCESS_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "format/records.h"

namespace heaprec::analyzers {

struct ProcessRow {
  std::string path;  // the trace
  format::ProcessInfo process;
  int32_t exit_status = -1;  // EndRecord::exit_status; -1 unknown or no End
  bool replaced_by_exec = false;
  bool truncated = false;  // the trace was cut short
  uint64_t allocations = 0;
  uint64_t peak_bytes = 0;
  uint64_t leaked_bytes = 0;  // live at the end
};

// A screenful: the rows heaprec's closing lines and heapreplay's text show.
inline constexpr size_t kScreenfulRows = 20;

// Largest first: peak bytes, then allocations, then pid, then path.
void SortLargestFirst(std::vector<ProcessRow>* rows);
// That order: whether a comes before b.
bool LargerProcess(const ProcessRow& a, const ProcessRow& b);

// The table, one line per row (rows in the order given): a header line,
// then pid, ppid, exit, allocations, peak, leaked, the trace and the command
// line (cut to 48 characters); each line starts with indent. With more than
// max_rows rows (0: no limit), the first max_rows and "... and N more".
std::string ProcessTableText(const std::vector<ProcessRow>& rows, size_t max_rows,
                             const std::string& indent);

// {"processes": [{"path", "pid", "ppid", "parent", "program", "exit_code",
// "signal", "replaced_by_exec", "truncated", "allocations", "peak_bytes",
// "leaked_bytes"}]} in the order given.
nlohmann::json ProcessesJson(const std::vector<ProcessRow>& rows);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_PROCESS_TABLE_H_
