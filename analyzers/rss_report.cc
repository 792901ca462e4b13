// RSS in the text and JSON reports (rss_report.h).
#include "analyzers/rss_report.h"

#include <cstdio>

#include "analyzers/human_bytes.h"

namespace heaprec::analyzers {
namespace {

bool OlderThanRss(format::FormatVersion v) { return v.major < 3 || (v.major == 3 && v.minor < 4); }

std::string NoRssNote(format::FormatVersion v) {
  if (OlderThanRss(v)) {
    return "no RSS recorded: the trace is format " + std::to_string(v.major) + "." +
           std::to_string(v.minor) + " (heaprec records RSS from format 3.4 on)";
  }
  return "no RSS samples: the process ended before the launcher's first (one every 10 ms)";
}

std::string Secs(uint64_t ns) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.3fs", ns / 1e9);
  return b;
}

}  // namespace

std::string RssText(const RssTrack& rss, format::FormatVersion version) {
  if (!rss.has_samples()) return "rss: " + NoRssNote(version) + "\n";
  std::string out = "rss: peak " + HumanBytes(rss.peak_rss_bytes()) + " at " +
                    Secs(rss.peak_rss_time_ns()) + " (" + std::to_string(rss.samples()) +
                    " samples)";
  if (const auto gap = rss.gap_at_heap_peak()) {
    out += "; at the heap's peak " + HumanBytes(*rss.rss_at_heap_peak()) + ", " +
           HumanBytes(static_cast<uint64_t>(*gap < 0 ? -*gap : *gap)) +
           (*gap < 0 ? " below" : " above") +
           " the live heap (allocator overhead and fragmentation, plus code, stacks and other "
           "mappings)";
  }
  return out + "\n";
}

void AddRssSummaryJson(const RssTrack& rss, nlohmann::json* summary) {
  using nlohmann::json;
  (*summary)["peak_rss_bytes"] = rss.has_samples() ? json(rss.peak_rss_bytes()) : json(nullptr);
  const auto at = rss.rss_at_heap_peak();
  const auto gap = rss.gap_at_heap_peak();
  (*summary)["rss_at_peak_bytes"] = at ? json(*at) : json(nullptr);
  (*summary)["rss_gap_at_peak_bytes"] = gap ? json(*gap) : json(nullptr);
}

nlohmann::json RssJson(const RssTrack& rss, format::FormatVersion version, bool points) {
  nlohmann::json j = {{"samples", rss.samples()},
                      {"mean_interval_ns", rss.mean_interval_ns()},
                      {"peak_rss_bytes", rss.peak_rss_bytes()},
                      {"peak_rss_time_ns", rss.peak_rss_time_ns()}};
  if (!rss.has_samples()) j["note"] = NoRssNote(version);
  if (points) {
    nlohmann::json list = nlohmann::json::array();
    for (const RssPoint& p : rss.points()) {
      list.push_back({{"time_ns", p.sample.time_ns},
                      {"seq", p.sample.seq},
                      {"rss_bytes", p.sample.total_bytes()},
                      {"anon_bytes", p.sample.anon_bytes},
                      {"file_bytes", p.sample.file_bytes},
                      {"shmem_bytes", p.sample.shmem_bytes},
                      {"live_bytes", p.live_bytes}});
      // A heaptrack recording's samples: of no known kind.
      if (p.sample.unsplit_bytes != 0) list.back()["unsplit_bytes"] = p.sample.unsplit_bytes;
    }
    j["points"] = list;
  }
  return j;
}

}  // namespace heaprec::analyzers
