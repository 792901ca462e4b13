// heaptrack_print's numbers beside heapreplay's (heaptrack_notes.h).
#include "heapreplay/heaptrack_notes.h"

#include "analyzers/human_bytes.h"
#include "analyzers/leak_report.h"
#include "analyzers/suppressions.h"

namespace heaprec::heapreplay {
namespace {

// heaptrack 1.4's built-in leak suppressions (src/analyze/suppressions.cpp):
// glibc's, the dynamic linker's and glib's allocations kept for the process's
// life.
constexpr const char* kBuiltinSuppressions[] = {
    "__nss_module_allocate", "__gconv_read_conf",  "__new_exitfn", "tzset_internal",
    "dl_open_worker",        "g_main_context_new", "g_thread_self"};

// The bytes live at the end that heaptrack_print's suppressions match.
uint64_t SuppressedByHeaptrack(const format::HeaptrackFacts& h, const analyzers::Analysis& a) {
  std::string text;
  for (const char* pattern : kBuiltinSuppressions) text += std::string("leak:") + pattern + "\n";
  for (const std::string& embedded : h.suppressions) {
    text += (embedded.rfind("leak:", 0) == 0 ? "" : "leak:") + embedded + "\n";
  }
  analyzers::Suppressions suppressions;
  std::string error;
  if (!suppressions.AddText(text, "heaptrack_print's suppressions", &error)) return 0;
  const analyzers::LeakReport report =
      analyzers::BuildLeakReport(a.heap(), nullptr, "", a.symbols(), &suppressions);
  return report.suppressed.bytes;
}

}  // namespace

std::vector<std::string> HeaptrackNotes(const format::HeaptrackFacts& h, uint64_t temporaries,
                                        const analyzers::Analysis& a) {
  std::vector<std::string> notes;
  if (h.heaptrack_print_temporaries != temporaries) {
    notes.push_back("heaptrack_print counts " + std::to_string(h.heaptrack_print_temporaries) +
                    " temporaries: it also counts a free of the recording's first allocation "
                    "info that follows another free (its 'no allocation' mark is that info's "
                    "index)");
  }
  if (!a.stopped()) {
    if (const uint64_t suppressed = SuppressedByHeaptrack(h, a); suppressed != 0) {
      notes.push_back("heaptrack_print leaves " + std::to_string(suppressed) +
                      " B out of its leaks (\"suppressed leaks\"): its built-in suppressions" +
                      (h.suppressions.empty() ? "" : " and the program's") +
                      " match them (heapreplay leaves them out with --suppressions FILE of "
                      "LeakSanitizer leak: lines)");
    }
  }
  if (h.unmatched_frees != 0) {
    notes.push_back(std::to_string(h.unmatched_frees) +
                    " frees of a stack and size with no live allocation were left out");
  }
  if (h.unknown_lines != 0) {
    notes.push_back(std::to_string(h.unknown_lines) +
                    " lines of unknown record types were skipped");
  }
  if (h.peak_rss_pages != 0 && h.page_size != 0) {
    notes.push_back("peak RSS " + analyzers::HumanBytes(h.peak_rss_pages * h.page_size) +
                    " (heaptrack's samples, its own overhead included)");
  }
  return notes;
}

}  // namespace heaprec::heapreplay
