// FormatLeakSummary (leak_summary.h).
#include "recorder/leakscan/leak_summary.h"

#include <cstdio>

namespace heaprec::recorder::leakscan {

namespace {

const char* HeuristicName(int h) {
  switch (static_cast<Heuristic>(h)) {
    case Heuristic::kStdString:
      return "stdstring";
    case Heuristic::kLength64:
      return "length64";
    case Heuristic::kNewArray:
      return "newarray";
    case Heuristic::kMultipleInheritance:
      return "multipleinheritance";
    case Heuristic::kNone:
      break;
  }
  return "none";
}

void Line(std::string* out, const char* label, const Totals& t) {
  *out += label;
  *out += WithThousands(t.bytes);
  *out += " bytes in ";
  *out += WithThousands(t.blocks);
  *out += " blocks\n";
}

}  // namespace

std::string WithThousands(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

LeakSummary SummaryOf(const LeakScanResult& result) {
  LeakSummary s;
  s.by_kind = result.by_kind;
  s.via_heuristic = result.via_heuristic;
  return s;
}

std::string FormatLeakSummary(const LeakSummary& s) {
  std::string out = "LEAK SUMMARY:\n";
  Line(&out, "   definitely lost: ", s.by_kind[static_cast<int>(LeakKind::kDefinitelyLost)]);
  Line(&out, "   indirectly lost: ", s.by_kind[static_cast<int>(LeakKind::kIndirectlyLost)]);
  Line(&out, "     possibly lost: ", s.by_kind[static_cast<int>(LeakKind::kPossiblyLost)]);
  Line(&out, "   still reachable: ", s.by_kind[static_cast<int>(LeakKind::kStillReachable)]);
  bool any = false;
  for (int h = 1; h < kHeuristicCount; ++h) any = any || s.via_heuristic[h].blocks > 0;
  if (any) out += "                      of which reachable via heuristic:\n";
  for (int h = 1; h < kHeuristicCount; ++h) {
    if (s.via_heuristic[h].blocks == 0) continue;
    char label[64];
    std::snprintf(label, sizeof label, "                        %-19s: ", HeuristicName(h));
    Line(&out, label, s.via_heuristic[h]);
  }
  Line(&out, "        suppressed: ", s.suppressed);
  return out;
}

}  // namespace heaprec::recorder::leakscan
