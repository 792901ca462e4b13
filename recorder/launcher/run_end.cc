// RunEnd (run_end.h).
#include "recorder/launcher/run_end.h"

#include <dirent.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>

#include "analyzers/human_bytes.h"
#include "analyzers/process_end.h"
#include "analyzers/process_table.h"
#include "analyzers/sampling_notice.h"

namespace heaprec::recorder::launcher {

void RemoveSessionDir(const std::string& dir) {
  // Region files are unlinked when adopted; remove any left over.
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* ent = readdir(d)) {
      const std::string name = ent->d_name;
      if (name != "." && name != "..") unlink((dir + "/" + name).c_str());
    }
    closedir(d);
  }
  rmdir(dir.c_str());
}

void PrintSamplingNotice(const std::vector<TraceResult>& results) {
  for (const TraceResult& r : results) {
    if (r.process.sample_rate == 0) continue;
    std::fprintf(stderr, "heaprec: %s (allocations and frees: the calls recorded)\n",
                 analyzers::SamplingNotice(r.process.sample_rate).c_str());
    return;
  }
}

void PrintSummary(const std::vector<TraceResult>& results, const Options& o) {
  if (results.empty()) {
    const bool patterns = !o.follow_only.empty() || !o.follow_skip.empty();
    std::fprintf(stderr, "heaprec: no trace written (%s)\n",
                 patterns ? "no program of the run matched the --follow=/--no-follow= patterns"
                          : "the program never started recording");
    return;
  }
  std::vector<analyzers::ProcessRow> rows;
  for (const TraceResult& r : results) {
    rows.push_back({r.path, r.process, r.exit_status, r.replaced_by_exec, false, r.allocations,
                    r.peak_bytes, r.leaked_bytes});
  }
  analyzers::SortLargestFirst(&rows);
  if (rows.size() == 1) {
    const TraceResult& r = results[0];
    std::fprintf(stderr,
                 "heaprec: wrote %s (%s): pid %d %s, %" PRIu64 " allocations, %" PRIu64
                 " frees, peak %s, leaked %s, %" PRIu64 " stacks; next: heapreplay --leaks %s\n",
                 r.path.c_str(), analyzers::HumanBytes(r.bytes).c_str(), r.pid,
                 analyzers::ExitWords(r.exit_status, r.replaced_by_exec).c_str(), r.allocations,
                 r.frees, analyzers::HumanBytes(r.peak_bytes).c_str(),
                 analyzers::HumanBytes(r.leaked_bytes).c_str(), r.stacks, r.path.c_str());
    PrintSamplingNotice(results);
    return;
  }
  uint64_t bytes = 0;
  for (const TraceResult& r : results) bytes += r.bytes;
  std::fprintf(stderr, "heaprec: wrote %zu traces (%s), largest peak first:\n%s", rows.size(),
               analyzers::HumanBytes(bytes).c_str(),
               analyzers::ProcessTableText(rows, analyzers::kScreenfulRows, "  ").c_str());
  std::fprintf(stderr,
               "heaprec: next: heapreplay --leaks %s (the table again: heapreplay with "
               "every trace)\n",
               rows[0].path.c_str());
}

}  // namespace heaprec::recorder::launcher
