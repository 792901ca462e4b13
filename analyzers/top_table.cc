// pprof-style top table by function (top_table.h).
#include "analyzers/top_table.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <unordered_map>

#include "analyzers/human_bytes.h"

namespace heaprec::analyzers {
namespace {

std::string Value(uint64_t v, Metric metric) {
  return metric == Metric::kBytes ? HumanBytes(v) : std::to_string(v);
}

std::string Percent(uint64_t v, uint64_t total) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%.2f%%", total ? 100.0 * v / total : 0.0);
  return buf;
}

}  // namespace

std::vector<FunctionRow> TopFunctions(const std::vector<Site>& sites, Metric metric,
                                      const SymbolTable& symbols) {
  // Rows by function; each return address's functions (innermost first)
  // looked up once, as pointers to the rows. `site` marks the last site a
  // row's cum counted (recursion counts once per site).
  struct Row {
    FunctionRow row;
    size_t site = 0;
  };
  std::unordered_map<std::string, Row> rows;
  // Per return address its rows, each with whether that frame is the
  // allocator: flat goes to the site's first frame outside it (ViaIndex).
  std::unordered_map<uint64_t, std::vector<std::pair<Row*, bool>>> by_address;
  std::vector<std::pair<Row*, bool>> path;
  size_t site = 0;
  for (const Site& s : sites) {
    const uint64_t v = ValueOf(s, metric);
    if (v == 0) continue;
    ++site;
    path.clear();
    for (uint64_t address : symbols.stacks().Frames(s.stack)) {
      auto [it, fresh] = by_address.try_emplace(address);
      if (fresh) {
        for (const Frame& f : symbols.FramesOf(address)) {
          it->second.emplace_back(&rows[FrameName(f)], f.allocator);
        }
      }
      path.insert(path.end(), it->second.begin(), it->second.end());
    }
    if (path.empty()) path.emplace_back(&rows["[no stack]"], false);
    size_t via = 0;
    while (via < path.size() && path[via].second) ++via;
    path[via == path.size() ? 0 : via].first->row.flat += v;
    for (const auto& entry : path) {
      Row* r = entry.first;
      if (r->site == site) continue;
      r->site = site;
      r->row.cum += v;
    }
  }
  std::vector<FunctionRow> out;
  out.reserve(rows.size());
  for (auto& [name, r] : rows) {
    r.row.function = name;
    out.push_back(std::move(r.row));
  }
  std::sort(out.begin(), out.end(), [](const FunctionRow& a, const FunctionRow& b) {
    if (a.flat != b.flat) return a.flat > b.flat;
    if (a.cum != b.cum) return a.cum > b.cum;
    return a.function < b.function;
  });
  return out;
}

std::string TopTableText(const std::vector<FunctionRow>& rows, uint64_t total, Metric metric,
                         size_t top) {
  std::string out;
  char line[160];
  std::snprintf(line, sizeof(line), "  %10s %7s %7s %10s %7s  %s\n", "flat", "flat%", "sum%", "cum",
                "cum%", "function");
  out += line;
  uint64_t sum = 0;
  const size_t shown = top == 0 || top > rows.size() ? rows.size() : top;
  for (size_t i = 0; i < shown; ++i) {
    const FunctionRow& r = rows[i];
    sum += r.flat;
    std::snprintf(line, sizeof(line), "  %10s %7s %7s %10s %7s  ", Value(r.flat, metric).c_str(),
                  Percent(r.flat, total).c_str(), Percent(sum, total).c_str(),
                  Value(r.cum, metric).c_str(), Percent(r.cum, total).c_str());
    out += line;
    out += r.function;
    out += "\n";
  }
  if (shown < rows.size()) {
    out += "  ... " + std::to_string(rows.size() - shown) + " more functions\n";
  }
  return out;
}

}  // namespace heaprec::analyzers
