// heapreplay's command line: which analyses, which outputs, which trace.
// ParseOptions fills Options or returns false with one line in *error (the
// caller prints it and exits 2): an unknown option names the nearest one (or
// points to --help), a file option that took the trace as its value says so. UsageText is the
// help, made from the same table of options (base/command_line.h).
// Allocates; no other side effects.
#ifndef HEAPREC_HEAPREPLAY_OPTIONS_H_
#define HEAPREC_HEAPREPLAY_OPTIONS_H_

#include <string>
#include <vector>

#include "analyzers/alloc_functions.h"
#include "analyzers/report.h"
#include "analyzers/site.h"

namespace heaprec::heapreplay {

struct Options {
  analyzers::ReportOptions report;  // analyses named and --top
  bool json = false;
  bool folded = false;     // --folded: collapsed stacks on stdout
  std::string flamegraph;  // --flamegraph FILE.svg
  std::string pprof;       // --pprof FILE.pb.gz
  std::string html;        // --html FILE.html
  // --export FORMAT FILE (repeatable): FORMAT is a row of export_formats.h.
  struct Export {
    std::string format, file;
  };
  std::vector<Export> exports;
  std::string bench_json;  // --bench-json SAVED.json: earlier --bench --json results for --html
  analyzers::Metric metric = analyzers::Metric::kBytes;  // --metric
  bool metric_given = false;
  std::string at;  // --at MOMENT
  // The trace index, TRACE.hri (index_use.h): --index writes it whatever
  // the trace's size (alone: only that); --no-index neither reads nor
  // writes it.
  bool index = false, no_index = false;
  bool diff = false;                // --diff
  std::string from, to, base;       // --from, --to, --base
  std::string trace;                // the first TRACE
  std::vector<std::string> traces;  // every TRACE: several, or a folder, give the process table
  bool help = false;
  // --debug-dir DIR (repeatable, or DIR:DIR...): searched before
  // /usr/lib/debug for modules' files and debug files (symbolize/debug_files.h).
  std::vector<std::string> debug_dirs;
  // --alloc-fn NAME[,NAME...] (repeatable): functions folded into the
  // allocator, added to the built-in wrappers (analyzers/alloc_functions.h).
  analyzers::AllocFunctions alloc_functions;
  bool version = false;  // --version
  // Whether stdout gets the report (text, JSON, folded stacks or CSV): when an
  // analysis (--leaks, --peak, --temporaries, --hot, --histogram,
  // --mismatches, --timeline, --diff/--from/--to, --base without --html) or a
  // stdout format (--json, --folded) is named, or no file is asked for. A
  // file alone (--html, --pprof, --flamegraph, --export) is written alone.
  bool report_to_stdout = true;
  // The leak check (valgrind's spellings): --suppressions FILE (repeatable),
  // --error-exitcode N (exit N when a kind of errors_for has bytes after
  // suppressions; 0: never), --errors-for-leak-kinds SET.
  std::vector<std::string> suppressions;
  int error_exitcode = 0;
  analyzers::LeakKindSet errors_for = analyzers::DefaultLeakKinds();
  // --bench: replay against allocators (bench.h).
  bool bench = false;
  std::string allocators = "glibc,tcmalloc,jemalloc,mimalloc";  // --allocators
  int repeat = 5;                                               // --repeat N
  std::string touch = "page";                                   // --touch
  std::string plot;                                             // --plot FILE.svg
};

bool ParseOptions(int argc, char** argv, Options* options, std::string* error);

std::string UsageText();

}  // namespace heaprec::heapreplay

#endif  // HEAPREC_HEAPREPLAY_OPTIONS_H_
