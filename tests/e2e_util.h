// Helpers for the end-to-end tests: where the built programs are, running a
// program (directly or under heaprec) with its output captured, and fresh
// folders for traces.
//
// The tests run under `bazel test`, whose working directory is the runfiles
// root of the workspace; every program a test runs must be in its `data`.
// Test-only; allocates; not thread-safe.
#ifndef HEAPREC_TESTS_E2E_UTIL_H_
#define HEAPREC_TESTS_E2E_UTIL_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "format/api.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {

// Absolute path of a runfile named relative to the workspace root, e.g.
// "tests/c_leaks" or "recorder/heaprec".
std::string Runfile(const std::string& workspace_relative);

struct ProcessResult {
  int wait_status = -1;  // as waitpid gives it; -1 if the program never ran
  int exit_code = -1;    // exit code, or 128+N if killed by signal N
  std::string out;       // everything written to stdout
  std::string err;       // everything written to stderr
};

// Runs argv (argv[0] is a path) with the test's environment, stdin from
// /dev/null, stdout and stderr captured, and waits for it.
ProcessResult RunProgram(const std::vector<std::string>& argv);

// Runs `heaprec -q -o OUTPUT -- argv...` (heaprec from the runfiles).
ProcessResult RunHeaprec(const std::string& output, const std::vector<std::string>& argv);

// Starts argv (argv[0] a path) in the background, stdin from /dev/null,
// stdout and stderr to the files out and err (made anew: a caller polling
// err never reads an earlier run's words); returns its pid. The caller
// waits for it (waitpid).
pid_t StartInBackground(const std::vector<std::string>& argv, const std::string& out,
                        const std::string& err);

// The whole file ("" if unreadable).
std::string ReadTextFile(const std::string& path);
// Creates an empty file (a signal between a test and its program).
void TouchFile(const std::string& path);
// Waits up to timeout_ms for path to exist.
bool WaitForFile(const std::string& path, long timeout_ms = 30000);

// A new empty folder under ::testing::TempDir() whose name starts with name.
std::string MakeTempDir(const std::string& name);

// Full paths of the files in dir whose names end with suffix, sorted.
std::vector<std::string> ListFiles(const std::string& dir, const std::string& suffix);

// "a, b, c" for failure messages.
std::string Join(const std::vector<std::string>& items);

// One run of a program under heaprec, traces in a fresh folder.
struct Recording {
  ProcessResult run;                // heaprec's exit code is the program's
  std::string dir;                  // the folder
  std::vector<std::string> traces;  // every "*.zst" written there, sorted
};

// Runs argv under heaprec with -o DIR/trace.%p.zst, DIR = MakeTempDir(name).
Recording Record(const std::string& name, const std::vector<std::string>& argv);

// Records argv under heaprec (Record) for a program that runs as one process,
// and EXPECTs what every such test checks: heaprec's exit status exit_code,
// its standard output out (unless nullopt), exactly one trace, and
// ExpectConsistent. Returns that trace's summary, or an empty one (the
// failure reported) when there is not exactly one.
TraceSummary RecordOneTrace(const std::string& name, const std::vector<std::string>& argv,
                            int exit_code, const std::optional<std::string>& out);

// What one call site must show, exactly (trace_summary.h defines each
// number). calls and released_by list every Api with a non-zero count.
struct SiteExpectation {
  std::map<format::Api, uint64_t> calls;
  uint64_t allocations = 0;
  uint64_t reallocs = 0;
  uint64_t failed = 0;
  uint64_t bytes = 0;
  std::map<format::Api, uint64_t> released_by;
  uint64_t leaked_blocks = 0;
  uint64_t leaked_bytes = 0;
};

// EXPECTs that the site exists and has exactly these numbers.
void ExpectSite(const TraceSummary& s, const std::string& name, const SiteExpectation& want);

// EXPECTs what holds for every trace heaprec writes: read completely, an End
// record whose totals agree with the events (allocations, bytes, events),
// no event dropped, no stack lost.
void ExpectConsistent(const TraceSummary& s);

}  // namespace heaprec::tests

#endif  // HEAPREC_TESTS_E2E_UTIL_H_
