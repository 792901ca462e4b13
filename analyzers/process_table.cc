// The process table (process_table.h).
#include "analyzers/process_table.h"

#include <algorithm>
#include <array>

#include "analyzers/human_bytes.h"
#include "analyzers/process_end.h"

namespace heaprec::analyzers {
namespace {

constexpr size_t kCommandWidth = 48;

std::string Command(const format::ProcessInfo& p) {
  std::string line;
  for (size_t i = 0; i < p.args.size(); ++i) {
    std::string arg = p.args[i];
    if (i == 0) arg = arg.substr(arg.rfind('/') == std::string::npos ? 0 : arg.rfind('/') + 1);
    line += (i == 0 ? "" : " ") + arg;
  }
  if (line.empty()) line = p.program.empty() ? "?" : p.program;
  if (line.size() > kCommandWidth) line = line.substr(0, kCommandWidth - 3) + "...";
  return line;
}

// Columns: pid, ppid, exit, allocations, peak, leaked (right-aligned but
// exit), trace (left), command (left, last: not padded).
constexpr size_t kColumns = 8;
using Cells = std::array<std::string, kColumns>;

Cells CellsOf(const ProcessRow& r) {
  return {std::to_string(r.process.pid),
          std::to_string(r.process.ppid),
          ExitWords(r.exit_status, r.replaced_by_exec),
          std::to_string(r.allocations),
          HumanBytes(r.peak_bytes),
          HumanBytes(r.leaked_bytes),
          r.path + (r.truncated ? " [truncated]" : ""),
          Command(r.process)};
}

}  // namespace

bool LargerProcess(const ProcessRow& a, const ProcessRow& b) {
  if (a.peak_bytes != b.peak_bytes) return a.peak_bytes > b.peak_bytes;
  if (a.allocations != b.allocations) return a.allocations > b.allocations;
  if (a.process.pid != b.process.pid) return a.process.pid < b.process.pid;
  return a.path < b.path;
}

void SortLargestFirst(std::vector<ProcessRow>* rows) {
  std::stable_sort(rows->begin(), rows->end(), LargerProcess);
}

std::string ProcessTableText(const std::vector<ProcessRow>& rows, size_t max_rows,
                             const std::string& indent) {
  const size_t shown = max_rows == 0 ? rows.size() : std::min(rows.size(), max_rows);
  std::vector<Cells> table = {
      {"pid", "ppid", "exit", "allocations", "peak", "leaked", "trace", "command"}};
  for (size_t i = 0; i < shown; ++i) table.push_back(CellsOf(rows[i]));
  std::array<size_t, kColumns> width{};
  for (const Cells& c : table) {
    for (size_t k = 0; k < kColumns; ++k) width[k] = std::max(width[k], c[k].size());
  }
  std::string out;
  for (const Cells& c : table) {
    std::string line = indent;
    for (size_t k = 0; k < kColumns; ++k) {
      const std::string pad(width[k] - c[k].size(), ' ');
      const bool left = k == 2 || k >= 6;
      if (k > 0) line += "  ";
      line += left ? c[k] + (k + 1 < kColumns ? pad : "") : pad + c[k];
    }
    out += line + "\n";
  }
  if (shown < rows.size()) {
    out += indent + "... and " + std::to_string(rows.size() - shown) + " more\n";
  }
  return out;
}

nlohmann::json ProcessesJson(const std::vector<ProcessRow>& rows) {
  nlohmann::json list = nlohmann::json::array();
  for (const ProcessRow& r : rows) {
    nlohmann::json p = {
        {"path", r.path},
        {"pid", r.process.pid},
        {"ppid", r.process.ppid},
        {"parent", r.process.parent_trace.empty() ? nlohmann::json(nullptr)
                                                  : nlohmann::json(r.process.parent_trace)},
        {"program", r.process.program},
    };
    AddExitJson(r.exit_status, &p);
    p["replaced_by_exec"] = r.replaced_by_exec;
    p["truncated"] = r.truncated;
    p["allocations"] = r.allocations;
    p["peak_bytes"] = r.peak_bytes;
    p["leaked_bytes"] = r.leaked_bytes;
    // Estimates (heaprec --sample-rate): as the report's "sampling".
    if (r.process.sample_rate != 0) p["sampling"] = {{"rate", r.process.sample_rate}};
    list.push_back(std::move(p));
  }
  return {{"processes", list}};
}

}  // namespace heaprec::analyzers
