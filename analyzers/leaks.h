// Leak sites: the blocks still live at a moment (the end of the trace, for
// heapreplay --leaks), grouped by the call stack that allocated them, largest
// total first. A pure function of a LiveHeap.
// Thread-safe for distinct inputs; allocates.
#ifndef HEAPREC_ANALYZERS_LEAKS_H_
#define HEAPREC_ANALYZERS_LEAKS_H_

#include <cstdint>
#include <vector>

#include "analyzers/live_heap.h"
#include "analyzers/site.h"

namespace heaprec::analyzers {

// Sites by bytes, largest first (ties: more blocks first, then stack id).
std::vector<Site> LeakSites(const LiveHeap& heap);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_LEAKS_H_
