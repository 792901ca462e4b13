// Paired differences as text and JSON (paired_report.h).
#include "replay/paired_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace heaprec::replay {
namespace {

struct Scale {
  double divisor;
  const char* unit;
  const char* format;  // signed
};

// One scale for a whole line, chosen by its largest magnitude.
Scale ScaleFor(double magnitude, Unit unit) {
  if (unit == Unit::kSeconds) {
    if (magnitude >= 1.0) return {1.0, "s", "%+.3f"};
    return {1e-3, "ms", "%+.1f"};
  }
  if (magnitude >= 1024.0 * 1024) return {1024.0 * 1024, "MiB", "%+.2f"};
  return {1024.0, "KiB", "%+.1f"};
}

std::string Number(const Scale& s, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, s.format, v / s.divisor);
  return buf;
}

}  // namespace

std::string SignedAmount(double value, Unit unit) {
  const Scale s = ScaleFor(std::fabs(value), unit);
  return Number(s, value) + " " + s.unit;
}

std::string DifferenceText(const base::PairedDifference& d, Unit unit) {
  if (d.pairs == 0) return "no pair of runs to compare";
  const double magnitude = std::max({std::fabs(d.median), std::fabs(d.low), std::fabs(d.high)});
  const Scale s = ScaleFor(magnitude, unit);
  std::string out = Number(s, d.median) + " " + s.unit;
  if (!d.HasInterval()) return out + " (one run: no interval)";
  out += " [" + Number(s, d.low) + ", " + Number(s, d.high) + "]  ";
  if (d.noise) return out + "no difference beyond noise";
  std::string amount = Number(s, std::fabs(d.median));
  if (!amount.empty() && amount[0] == '+') amount.erase(0, 1);
  return out + (d.median < 0 ? "saves " : "costs ") + amount + " " + s.unit;
}

nlohmann::json DifferenceJson(const base::PairedDifference& d) {
  return {{"median", d.median}, {"low", d.low},     {"high", d.high},
          {"mean", d.mean},     {"pairs", d.pairs}, {"beyond_noise", d.HasInterval() && !d.noise}};
}

nlohmann::json DifferenceMethodJson(const base::BootstrapOptions& o) {
  return {{"statistic", "median of the per-round differences X - reference"},
          {"confidence", o.confidence},
          {"resamples", o.resamples},
          {"seed", o.seed}};
}

std::string DifferenceMethodText(size_t pairs, const base::BootstrapOptions& o) {
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "median of %zu paired run(s), [%.0f%% bootstrap interval, %d resamples]", pairs,
                100 * o.confidence, o.resamples);
  return buf;
}

int BestBeyondNoise(const std::vector<base::PairedDifference>& diffs) {
  int best = -1;
  for (size_t i = 0; i < diffs.size(); ++i) {
    const base::PairedDifference& d = diffs[i];
    if (!d.HasInterval() || d.noise || d.median >= 0) continue;
    if (best < 0 || d.median < diffs[size_t(best)].median) best = static_cast<int>(i);
  }
  return best;
}

std::string WrapText(const std::string& text, size_t width) {
  std::string out, line, word;
  auto flush_word = [&] {
    if (word.empty()) return;
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    word.clear();
  };
  for (char c : text) {
    if (c == ' ') {
      flush_word();
    } else {
      word += c;
    }
  }
  flush_word();
  return out + line + "\n";
}

}  // namespace heaprec::replay
