// LeakScanner: answers a process's leak scan request (format/FORMAT.md,
// "Leak scans"). It holds every thread of the process still (process_stop.h),
// moves every record written so far into the trace (retrying, with the
// threads let go for a moment, while a thread was stopped between taking a
// seq and writing its record), gives the scan the next seq, reads the map,
// the registers and the memory (process_memory.h) and classifies the live
// blocks as memcheck does (recorder/leakscan), lets the threads go, wakes the
// thread that asked and then writes the scan (naming its roots: the names of
// a module's globals are made only for the roots a scan names).
//
// Where ptrace is refused the scan still runs on the moving process, marked
// approximate (threads' registers unknown, their stacks read whole).
//
// Not thread-safe; allocates. The launcher's main thread, between drains.
#ifndef HEAPREC_RECORDER_LAUNCHER_LEAK_SCANNER_H_
#define HEAPREC_RECORDER_LAUNCHER_LEAK_SCANNER_H_

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "recorder/launcher/region_reader.h"
#include "recorder/launcher/trace_builder.h"
#include "symbolize/data_symbols.h"

namespace heaprec::recorder::launcher {

class LeakScanner {
 public:
  // excluded: path prefixes of heaprec's own memory in the traced process
  // (the session folder, libheaprec.so).
  explicit LeakScanner(std::vector<std::string> excluded) : excluded_(std::move(excluded)) {}

  // Answers request for process pid (whose records reader drains into
  // builder) and wakes the thread that asked. now_ns: CLOCK_MONOTONIC.
  void Answer(pid_t pid, const ScanRequest& request, RegionReader& reader, TraceBuilder& builder);
  // Reads what a scan needs of module m (its variables and TLS segment)
  // ahead of the scan, which otherwise reads it while the process stands
  // still (the exit scan of python3 -c pass: about 4 of its 10 ms). Not
  // past kKeptModuleData entries: many live processes would keep them all.
  void Warm(const format::Module& m) {
    if (module_data_.size() < kKeptModuleData) DataOf(m);
  }

 private:
  const symbolize::ModuleData& DataOf(const format::Module& m);

  std::vector<std::string> excluded_;
  std::map<std::string, symbolize::ModuleData> module_data_;  // by path and bias
  static constexpr size_t kKeptModuleData = 256;              // entries, then emptied
  // Files with a build-id, read once at bias 0, by path and build-id: the
  // processes of a session load the same libraries at other addresses, and
  // reading libc's symbols (its debug file's) again for each took ~1 ms while
  // the process stood stopped.
  std::map<std::string, symbolize::ModuleData> file_data_;
};

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_LEAK_SCANNER_H_
