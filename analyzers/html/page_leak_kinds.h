// The leak kinds of an HTML report (DATA.md, "leak_kinds"): every block live
// at the end (or --at) that no suppression matched, by call stack (node),
// time bucket of its allocation and memcheck kind, so the page can show any
// set of kinds for any range; what holds the still reachable ones, per node;
// and the base trace's (--base) the same per node, without buckets.
// Pure functions of their inputs; allocate. Called by PageData.
#ifndef HEAPREC_ANALYZERS_HTML_PAGE_LEAK_KINDS_H_
#define HEAPREC_ANALYZERS_HTML_PAGE_LEAK_KINDS_H_

#include <nlohmann/json.hpp>

#include "analyzers/html/page_stacks.h"
#include "analyzers/leak_report.h"
#include "analyzers/live_heap.h"
#include "analyzers/range_profile.h"

namespace heaprec::analyzers::html {

// {"cells", "roots", "held_by"}, or null when r knows no kinds (no scan):
// r was built from `heap`; `range` is Finish()ed.
nlohmann::json LeakKindsPageJson(const LeakReport& r, const LiveHeap& heap,
                                 const RangeProfile& range, StackNodes* nodes);

// The base's {"node", "kind", "n", "b"} from its sites, or null (no scan).
nlohmann::json BaseLeakKindsJson(const LeakReport& r, StackNodes* nodes);

}  // namespace heaprec::analyzers::html

#endif  // HEAPREC_ANALYZERS_HTML_PAGE_LEAK_KINDS_H_
