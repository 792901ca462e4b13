// memcheck's words for the leak check (leak_check_text.h).
#include "analyzers/leak_check_text.h"

#include <string.h>
#include <sys/wait.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <vector>

#include "analyzers/human_bytes.h"

namespace heaprec::analyzers {
namespace {

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%" PRIX64, v);
  return buf;
}

// One frame as valgrind writes it: "func (file:line)" or "func (in module)".
std::string FrameLine(const Frame& f) {
  std::string where = !f.file.empty()
                          ? f.file.substr(f.file.rfind('/') + 1) + ":" + std::to_string(f.line)
                          : "in " + (f.module_path.empty() ? f.module : f.module_path);
  // valgrind's word for a function it cannot name.
  return Hex(f.address) + ": " + (HasFunction(f) ? f.function : "???") + " (" + where + ")";
}

}  // namespace

std::string LeakCheckText(const Analysis& a, const SummaryAnalyzer& s, const LeakReport& l,
                          const LeakCheckOptions& o, uint64_t* errors) {
  const std::string pid = "==" + std::to_string(a.process() ? a.process()->pid : 0) + "== ";
  std::string out;
  auto line = [&](const std::string& text) { out += pid + text + "\n"; };
  // As valgrind says a signal ended the process before its summary.
  if (a.end() && a.end()->exit_status != -1 && WIFSIGNALED(a.end()->exit_status)) {
    const int sig = WTERMSIG(a.end()->exit_status);
    const char* name = sigabbrev_np(sig);
    line("Process terminating with default action of signal " + std::to_string(sig) + " (SIG" +
         (name != nullptr ? name : "?") + ")");
    line("");
  }
  line("HEAP SUMMARY:");
  line("    in use at exit: " + TotalsText(l.in_use));
  line("  total heap usage: " + Commas(s.allocations()) + " allocs, " + Commas(s.frees()) +
       " frees, " + Commas(s.bytes_allocated()) + " bytes allocated");
  line("");
  // Loss records, smallest first as valgrind lists them, numbered over all.
  std::vector<const LeakSite*> records;
  for (const LeakSite& site : l.sites) records.push_back(&site);
  std::stable_sort(records.begin(), records.end(), [](const LeakSite* x, const LeakSite* y) {
    return x->site.bytes + x->indirect_bytes < y->site.bytes + y->indirect_bytes;
  });
  uint64_t counted = 0, suppressed = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    const LeakSite& r = *records[i];
    const bool error = CountsAsError(r, o.errors_for);
    if (r.suppressed != nullptr) {
      suppressed += error;
      continue;
    }
    counted += error;
    if (!o.full || !Shown(r, o.show)) continue;
    const std::string bytes = r.indirect_bytes == 0
                                  ? Commas(r.site.bytes)
                                  : Commas(r.site.bytes + r.indirect_bytes) + " (" +
                                        Commas(r.site.bytes) + " direct, " +
                                        Commas(r.indirect_bytes) + " indirect)";
    line(bytes + " bytes in " + Commas(r.site.count) + " blocks are " + LeakKindWords(r.kind) +
         " in loss record " + Commas(i + 1) + " of " + Commas(records.size()));
    line("   at " + std::string("0x0: ") + r.alloc_function + " (in heaprec)");
    for (const Frame& f : a.symbols().Frames(r.site.stack)) line("   by " + FrameLine(f));
    line("");
  }
  if (!l.no_scan.empty()) {
    line("no leak scan: " + l.no_scan + " (every block in use counts as unknown)");
    line("");
  } else {
    line("LEAK SUMMARY:");
    line("   definitely lost: " + TotalsText(l.of(format::LeakKind::kDefinite)));
    line("   indirectly lost: " + TotalsText(l.of(format::LeakKind::kIndirect)));
    line("     possibly lost: " + TotalsText(l.of(format::LeakKind::kPossible)));
    line("   still reachable: " + TotalsText(l.of(format::LeakKind::kReachable)));
    static const char* const kHeuristics[] = {"", "stdstring", "length64", "newarray",
                                              "multipleinheritance"};
    bool any = false;
    for (size_t h = 1; h < l.heuristics.size(); ++h) any |= l.heuristics[h].blocks > 0;
    if (any) {
      line("                      of which reachable via heuristic:");
      for (size_t h = 1; h < l.heuristics.size(); ++h) {
        if (l.heuristics[h].blocks == 0) continue;
        char name[24];
        std::snprintf(name, sizeof(name), "%-19s", kHeuristics[h]);
        line(std::string("                        ") + name + ": " + TotalsText(l.heuristics[h]));
      }
    }
    line("        suppressed: " + TotalsText(l.suppressed));
    if (!o.full && l.in_use.blocks > l.suppressed.blocks) {
      line("Rerun with --leak-check=full to see details of leaked memory");
    }
    line("");
  }
  line("ERROR SUMMARY: " + Commas(counted) + " errors from " + Commas(counted) +
       " contexts (suppressed: " + Commas(suppressed) + " from " + Commas(suppressed) + ")");
  *errors = counted;
  return out;
}

}  // namespace heaprec::analyzers
