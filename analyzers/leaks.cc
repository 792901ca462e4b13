// Leak sites: live blocks grouped by stack (leaks.h).
#include "analyzers/leaks.h"

#include <algorithm>
#include <unordered_map>

namespace heaprec::analyzers {

std::vector<Site> LeakSites(const LiveHeap& heap) {
  std::unordered_map<uint32_t, Site> by_stack;
  for (const auto& [address, block] : heap.blocks()) {
    Site& s = by_stack[block.stack];
    s.stack = block.stack;
    s.bytes += block.size;
    ++s.count;
  }
  std::vector<Site> sites;
  sites.reserve(by_stack.size());
  for (const auto& [stack, site] : by_stack) sites.push_back(site);
  std::sort(sites.begin(), sites.end(), [](const Site& a, const Site& b) {
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.count != b.count) return a.count > b.count;
    return a.stack < b.stack;
  });
  return sites;
}

}  // namespace heaprec::analyzers
