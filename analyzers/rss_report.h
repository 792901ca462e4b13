// The RSS parts of heapreplay's reports (rss.h's RssTrack): the text line
// under the summary, the summary's JSON keys and the "rss" object of the
// JSON report (docs/DESIGN.md). A trace older than format 3.4 holds no RSS:
// the text says so, the JSON's numbers are null.
// Pure functions; allocate.
#ifndef HEAPREC_ANALYZERS_RSS_REPORT_H_
#define HEAPREC_ANALYZERS_RSS_REPORT_H_

#include <nlohmann/json.hpp>
#include <string>

#include "analyzers/rss.h"
#include "format/format_version.h"

namespace heaprec::analyzers {

// "rss: peak 70.1 MiB at 0.16s; at the heap's peak 68.0 MiB, 3.5 MiB above
// the live heap ...", or why there is none; ends with a newline.
std::string RssText(const RssTrack& rss, format::FormatVersion version);
// Adds peak_rss_bytes, rss_at_peak_bytes and rss_gap_at_peak_bytes to the
// summary object (null when unknown).
void AddRssSummaryJson(const RssTrack& rss, nlohmann::json* summary);
// The "rss" object: samples, mean_interval_ns, note, and with points the
// samples kept (RssTrack's at most 1000).
nlohmann::json RssJson(const RssTrack& rss, format::FormatVersion version, bool points);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_RSS_REPORT_H_
