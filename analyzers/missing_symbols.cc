// Modules that left frames unnamed (missing_symbols.h).
#include "analyzers/missing_symbols.h"

#include <algorithm>
#include <map>
#include <unordered_set>
#include <utility>

namespace heaprec::analyzers {

std::vector<MissingSymbols> FindMissingSymbols(const SymbolTable& symbols) {
  const format::StackTable& stacks = symbols.stacks();
  std::unordered_set<uint64_t> seen;
  std::map<std::pair<std::string, std::string>, MissingSymbols> by_module;  // (path, build-id)
  for (uint32_t id = 1; id <= stacks.size(); ++id) {
    const uint64_t address = stacks.Address(id);
    if (address == 0 || !seen.insert(address).second) continue;
    const std::vector<Frame> frames = symbols.FramesOf(address);
    if (frames.empty() || frames.back().module.empty()) continue;
    const bool unnamed =
        std::any_of(frames.begin(), frames.end(), [](const Frame& f) { return !HasFunction(f); });
    if (!unnamed) continue;
    const Frame& f = frames.back();
    MissingSymbols& m = by_module[{f.module_path, f.build_id}];
    m.module = f.module;
    m.path = f.module_path;
    m.build_id = f.build_id;
    ++m.frames;
  }
  std::vector<MissingSymbols> out;
  for (auto& [key, m] : by_module) out.push_back(std::move(m));
  std::stable_sort(out.begin(), out.end(), [](const MissingSymbols& a, const MissingSymbols& b) {
    return a.frames > b.frames;
  });
  return out;
}

nlohmann::json MissingSymbolsJson(const std::vector<MissingSymbols>& missing) {
  nlohmann::json list = nlohmann::json::array();
  for (const MissingSymbols& m : missing) {
    list.push_back(
        {{"module", m.module}, {"path", m.path}, {"build_id", m.build_id}, {"frames", m.frames}});
  }
  return {{"missing", list}};
}

std::string MissingSymbolsText(const std::vector<MissingSymbols>& missing) {
  if (missing.empty()) return "";
  uint64_t total = 0;
  std::string list;
  for (const MissingSymbols& m : missing) {
    total += m.frames;
    if (!list.empty()) list += ", ";
    list += m.module + " (";
    if (!m.build_id.empty()) list += "build-id " + m.build_id + ", ";
    list += std::to_string(m.frames) + (m.frames == 1 ? " frame)" : " frames)");
  }
  return "no symbols for " + std::to_string(total) + (total == 1 ? " frame" : " frames") +
         " in: " + list +
         "; install each module's -dbgsym package (Debian) or give heapreplay --debug-dir DIR "
         "with its debug file";
}

}  // namespace heaprec::analyzers
