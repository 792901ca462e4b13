// Per-stack totals and the sites' order (stack_totals.h).
#include "analyzers/stack_totals.h"

#include <algorithm>

namespace heaprec::analyzers {

void SortSites(std::vector<Site>* sites, Metric order) {
  std::sort(sites->begin(), sites->end(), [order](const Site& a, const Site& b) {
    const uint64_t va = ValueOf(a, order), vb = ValueOf(b, order);
    if (va != vb) return va > vb;
    const Metric other = order == Metric::kBytes ? Metric::kCount : Metric::kBytes;
    if (ValueOf(a, other) != ValueOf(b, other)) return ValueOf(a, other) > ValueOf(b, other);
    return a.stack < b.stack;
  });
}

std::vector<Site> StackTotals::Sorted(Metric order) const {
  std::vector<Site> out;
  for (const Site& s : sites_) {
    if (s.count != 0) out.push_back(s);
  }
  SortSites(&out, order);
  return out;
}

}  // namespace heaprec::analyzers
