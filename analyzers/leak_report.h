// LeakReport: the blocks live at a moment (the end of the trace, or --at) by
// leak kind, as valgrind memcheck reports them, from the trace's leak scan at
// that moment (format/FORMAT.md, "Leak scans"): definitely lost, indirectly
// lost, possibly lost, still reachable, and suppressed (what a suppression
// file matched). Sites are per call stack and kind (memcheck's loss records),
// each still-reachable site with the roots that hold it and the bytes each
// retains. A moment no scan covers (a trace without scans, a process killed
// before its end could be scanned, --at a moment that is not a scan) leaves
// every block of unknown kind, and the report says why.
//
// Suppression matching sees the allocation stack as valgrind does: frame 0
// is the allocation function (malloc, operator new, ... with its mangled
// name), then the recorded stack, inlined calls expanded. A block of unknown
// kind is matched by LeakSanitizer entries only (they hold for any kind, as
// heaptrack_print applies them to a heaptrack recording).
//
// A pure function of its inputs; allocates.
#ifndef HEAPREC_ANALYZERS_LEAK_REPORT_H_
#define HEAPREC_ANALYZERS_LEAK_REPORT_H_

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analyzers/live_heap.h"
#include "analyzers/site.h"
#include "analyzers/suppressions.h"
#include "analyzers/symbol_table.h"
#include "format/records.h"

namespace heaprec::analyzers {

struct KindTotals {
  uint64_t bytes = 0;
  uint64_t blocks = 0;
  void Add(uint64_t b, uint64_t n = 1) {
    bytes += b;
    blocks += n;
  }
  friend bool operator==(const KindTotals&, const KindTotals&) = default;
};

// "1,024 bytes in 1 blocks", as valgrind's LEAK SUMMARY writes a kind.
std::string TotalsText(const KindTotals& t);

struct HeldBy {
  std::string root;  // a LeakRoot's name, or "several roots"
  uint64_t bytes = 0;
  friend bool operator==(const HeldBy&, const HeldBy&) = default;
};

struct LeakSite {
  Site site;  // stack, bytes, count = blocks
  format::LeakKind kind = format::LeakKind::kUnknown;
  std::vector<HeldBy> held_by;              // still reachable: largest first
  uint64_t indirect_bytes = 0;              // definitely lost: the bytes lost through them
  std::string alloc_function;               // the allocation function (malloc, operator new...)
  const Suppression* suppressed = nullptr;  // the suppression that matched it
};

struct LeakReport {
  // The scan that answers for the moment (nullptr: none); its status and note
  // say whether it was done.
  const format::LeakScan* scan = nullptr;
  std::string no_scan;  // why the kinds are unknown, when they are
  KindTotals in_use;    // every live block
  // After suppressions, by format::LeakKind ([0]: unknown kind).
  std::array<KindTotals, 5> kinds{};
  KindTotals suppressed;
  // memcheck's "of which reachable via heuristic", by format::LeakHeuristic
  // ([0] unused): every block whose heuristic is set, whatever its kind.
  std::array<KindTotals, 5> heuristics{};
  std::vector<LeakSite> sites;  // every kind, suppressed ones too; by bytes, largest first

  const KindTotals& of(format::LeakKind k) const { return kinds[static_cast<size_t>(k)]; }
};

// scan: the complete scan at the moment heap describes, or nullptr (then
// no_scan_reason says why). suppressions may be null.
LeakReport BuildLeakReport(const LiveHeap& heap, const format::LeakScan* scan,
                           const std::string& no_scan_reason, const SymbolTable& symbols,
                           const Suppressions* suppressions);

// The kinds valgrind shows by default (--show-leak-kinds=definite,possible).
LeakKindSet DefaultLeakKinds();
// Whether a site is listed and drawn: not suppressed, and of a kind in
// shown (or of unknown kind: then every site is).
bool Shown(const LeakSite& s, LeakKindSet shown);
// The shown sites merged by stack (for folded stacks, flame graphs, pprof).
std::vector<Site> ShownSites(const LeakReport& r, LeakKindSet shown);
// The same choice block by block (for views that place each live block, as
// the HTML page's time buckets do): true for a block of `heap` (the heap r
// was built from) whose site is Shown. Valid while r lives.
using BlockFilter = std::function<bool(uint64_t id, const LiveBlock& block)>;
BlockFilter ShownBlocks(const LeakReport& r, LeakKindSet shown);
// Each block's kind as r classifies it (kUnknown when r has no scan, or the
// scan does not list the block), or nullopt for a block whose site is
// suppressed: for views that place each live block by kind (the HTML page's
// kinds filter). Valid while r lives.
using BlockKind =
    std::function<std::optional<format::LeakKind>(uint64_t id, const LiveBlock& block)>;
BlockKind BlockKinds(const LeakReport& r);

// The loss records that count as errors for a leak gate (valgrind's
// --errors-for-leak-kinds): sites with blocks of a kind in errors_for, not
// suppressed. Sites of unknown kind (no scan) count when errors_for has
// definite: a gate does not pass on what it could not check.
uint64_t LeakErrors(const LeakReport& r, LeakKindSet errors_for);
// Whether one site would count (ignoring whether it is suppressed).
bool CountsAsError(const LeakSite& s, LeakKindSet errors_for);

// memcheck's words for a kind: "definitely lost", ... ("unknown").
const char* LeakKindWords(format::LeakKind kind);
// The JSON name: "definitely_lost", ..., "unknown".
const char* LeakKindKey(format::LeakKind kind);
// The allocation function as valgrind's frame 0 shows it.
LeakFrame AllocationFrame(format::Api api);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_LEAK_REPORT_H_
