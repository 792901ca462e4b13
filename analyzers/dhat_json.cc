// DHAT's JSON file (dhat_json.h).
#include "analyzers/dhat_json.h"

#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "analyzers/valgrind_frames.h"

namespace heaprec::analyzers {
namespace {

uint64_t Micros(uint64_t ns) { return ns / 1000; }

}  // namespace

std::string DhatJson(const DhatHeader& header, const std::vector<DhatSite>& sites,
                     const SymbolTable& symbols) {
  std::vector<std::string> ftbl = {"[root]"};
  std::unordered_map<std::string, int> frame_index;
  // A return address's frames as ftbl indexes, worked out once: sites share
  // most of their frames (symbols.Frames per site, each frame's text made
  // again, was most of this function on cppcheck's trace). Frame texts
  // enter ftbl in the order first met, as before.
  std::unordered_map<uint64_t, std::vector<int>> indexes_of;
  auto indexes_at = [&](uint64_t address) -> const std::vector<int>& {
    auto [at, fresh] = indexes_of.try_emplace(address);
    if (fresh) {
      for (const Frame& f : symbols.KeptFramesOf(address)) {
        std::string text = ValgrindFrameText(f);
        auto [it, added] = frame_index.try_emplace(text, static_cast<int>(ftbl.size()));
        if (added) ftbl.push_back(std::move(text));
        at->second.push_back(it->second);
      }
    }
    return at->second;
  };
  // One program point per frame sequence, in the order first met.
  std::map<std::vector<int>, size_t> point_of;
  std::vector<std::pair<std::vector<int>, DhatSite>> points;
  for (const DhatSite& s : sites) {
    std::vector<int> fs;
    for (const uint64_t address : symbols.stacks().Frames(s.stack)) {
      const std::vector<int>& indexes = indexes_at(address);
      fs.insert(fs.end(), indexes.begin(), indexes.end());
    }
    auto [it, added] = point_of.try_emplace(fs, points.size());
    if (added) {
      points.push_back({fs, s});
      continue;
    }
    DhatSite& p = points[it->second].second;
    p.total_bytes += s.total_bytes;
    p.total_blocks += s.total_blocks;
    p.total_lifetime_ns += s.total_lifetime_ns;
    p.max_bytes += s.max_bytes;
    p.max_blocks += s.max_blocks;
    p.peak_bytes += s.peak_bytes;
    p.peak_blocks += s.peak_blocks;
    p.end_bytes += s.end_bytes;
    p.end_blocks += s.end_blocks;
  }
  nlohmann::ordered_json pps = nlohmann::ordered_json::array();
  for (const auto& [fs, p] : points) {
    pps.push_back(nlohmann::ordered_json{{"tb", p.total_bytes},
                                         {"tbk", p.total_blocks},
                                         {"tl", Micros(p.total_lifetime_ns)},
                                         {"mb", p.max_bytes},
                                         {"mbk", p.max_blocks},
                                         {"gb", p.peak_bytes},
                                         {"gbk", p.peak_blocks},
                                         {"eb", p.end_bytes},
                                         {"ebk", p.end_blocks},
                                         {"fs", fs}});
  }
  // DHAT's layout: one program point and one frame per line.
  nlohmann::ordered_json j;
  j["dhatFileVersion"] = 2;
  j["mode"] = "heap";
  j["verb"] = "Allocated";
  j["bklt"] = true;
  j["bkacc"] = false;
  j["tu"] = "µs";
  j["Mtu"] = "s";
  j["tuth"] = 10;
  j["cmd"] = header.cmd;
  j["pid"] = header.pid;
  j["te"] = Micros(header.end_ns);
  j["tg"] = Micros(header.peak_ns);
  std::string out = j.dump(1);
  out.resize(out.size() - 2);  // the closing "\n}"
  out += ",\n \"pps\": [";
  for (size_t i = 0; i < pps.size(); ++i) out += (i == 0 ? "\n  " : ",\n  ") + pps[i].dump();
  out += "\n ],\n \"ftbl\": [";
  for (size_t i = 0; i < ftbl.size(); ++i) {
    out += (i == 0 ? "\n  " : ",\n  ") + nlohmann::json(ftbl[i]).dump();
  }
  return out + "\n ]\n}\n";
}

}  // namespace heaprec::analyzers
