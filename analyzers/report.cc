// Text and JSON reports (report.h).
#include "analyzers/report.h"

#include <cinttypes>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "analyzers/human_bytes.h"

namespace heaprec::analyzers {
namespace {

std::string Program(const SummaryAnalyzer& s) {
  if (!s.process()) return "?";
  const format::ProcessInfo& p = *s.process();
  std::string cmd;
  for (const std::string& a : p.args) cmd += (cmd.empty() ? "" : " ") + a;
  return cmd.empty() ? p.program : cmd;
}

void AppendFrame(std::string* out, const Frame& f) {
  *out += "      ";
  *out += f.inlined ? "(inlined) " : "";
  *out += f.function;
  if (!f.file.empty()) *out += "  " + f.file + ":" + std::to_string(f.line);
  if (!f.module.empty()) *out += "  [" + f.module + "]";
  *out += "\n";
}

nlohmann::json FrameJson(const Frame& f) {
  return {{"function", f.function},
          {"file", f.file.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.file)},
          {"line", f.line == 0 ? nlohmann::json(nullptr) : nlohmann::json(f.line)},
          {"module", f.module},
          {"address", Hex(f.address)},
          {"inlined", f.inlined}};
}

}  // namespace

std::string TextReport(const TraceInfo& trace, const SummaryAnalyzer& s,
                       const std::vector<Site>& sites, const SymbolTable& symbols,
                       const ReportOptions& options) {
  std::string out;
  out += "trace " + trace.path + ": " + Program(s);
  if (s.process()) out += " (pid " + std::to_string(s.process()->pid) + ")";
  out += trace.truncated ? " [truncated]\n" : "\n";
  if (options.leaks) {
    const uint64_t total = s.heap().live_bytes();
    out += "\nleaked " + HumanBytes(total) + " in " + std::to_string(s.heap().blocks().size()) +
           " blocks from " + std::to_string(sites.size()) + " call stacks\n";
    const size_t shown =
        options.top == 0 || options.top > sites.size() ? sites.size() : options.top;
    for (size_t i = 0; i < shown; ++i) {
      const Site& site = sites[i];
      char pct[16];
      std::snprintf(pct, sizeof(pct), "%.1f%%", total ? 100.0 * site.bytes / total : 0.0);
      out += "\n  #" + std::to_string(i + 1) + "  " + HumanBytes(site.bytes) + " (" + pct +
             ") in " + std::to_string(site.count) + " blocks, allocated at:\n";
      const std::vector<Frame> frames = symbols.Frames(site.stack);
      if (frames.empty()) out += "      (no stack recorded)\n";
      for (const Frame& f : frames) AppendFrame(&out, f);
    }
    if (shown < sites.size()) {
      out += "\n  ... " + std::to_string(sites.size() - shown) +
             " more call stacks (--top 0 shows all)\n";
    }
  }
  out += "\nsummary: " + std::to_string(s.allocations()) + " allocations (" +
         HumanBytes(s.bytes_allocated()) + "), " + std::to_string(s.frees()) + " frees, " +
         std::to_string(s.temporaries()) + " temporaries, peak " + HumanBytes(s.peak_bytes()) +
         ", leaked " + HumanBytes(s.heap().live_bytes()) + " in " +
         std::to_string(s.heap().blocks().size()) + " blocks\n";
  return out;
}

std::string JsonReport(const TraceInfo& trace, const SummaryAnalyzer& s,
                       const std::vector<Site>& sites, const SymbolTable& symbols,
                       const ReportOptions& options) {
  nlohmann::json j;
  j["trace"] = {{"path", trace.path},
                {"program", s.process() ? s.process()->program : ""},
                {"pid", s.process() ? s.process()->pid : 0},
                {"format_version", trace.version.major},
                {"truncated", trace.truncated}};
  j["summary"] = {
      {"allocations", s.allocations()},         {"frees", s.frees()},
      {"bytes_allocated", s.bytes_allocated()}, {"peak_bytes", s.peak_bytes()},
      {"leaked_bytes", s.heap().live_bytes()},  {"leaked_blocks", s.heap().blocks().size()},
      {"temporaries", s.temporaries()},         {"duration_ns", s.duration_ns()}};
  if (options.leaks) {
    nlohmann::json list = nlohmann::json::array();
    for (const Site& site : sites) {
      nlohmann::json stack = nlohmann::json::array();
      for (const Frame& f : symbols.Frames(site.stack)) stack.push_back(FrameJson(f));
      list.push_back({{"bytes", site.bytes}, {"count", site.count}, {"stack", stack}});
    }
    j["leaks"] = {
        {"bytes", s.heap().live_bytes()}, {"blocks", s.heap().blocks().size()}, {"sites", list}};
  }
  return j.dump(2) + "\n";
}

}  // namespace heaprec::analyzers
