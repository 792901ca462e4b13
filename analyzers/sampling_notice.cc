// The line a sampled trace's reports show (sampling_notice.h).
#include "analyzers/sampling_notice.h"

namespace heaprec::analyzers {

std::string RateWords(uint64_t rate) {
  static const struct {
    int shift;
    const char* unit;
  } kUnits[] = {{30, " GiB"}, {20, " MiB"}, {10, " KiB"}};
  for (const auto& u : kUnits) {
    const uint64_t one = uint64_t{1} << u.shift;
    if (rate >= one && rate % one == 0) return std::to_string(rate / one) + u.unit;
  }
  return std::to_string(rate) + (rate == 1 ? " byte" : " bytes");
}

std::string SamplingNotice(uint64_t rate) {
  if (rate == 0) return "";
  return "sampled: every " + RateWords(rate) +
         " on average (heaprec --sample-rate); numbers are estimates";
}

}  // namespace heaprec::analyzers
